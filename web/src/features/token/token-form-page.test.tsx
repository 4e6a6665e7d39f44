// @vitest-environment happy-dom
import { notifications, notificationsStore } from '@mantine/notifications';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../i18n/i18n.js';
import { renderScreen, stubApi } from '../../test-support/render.js';
import { TokenFormPage } from './token-form-page.js';
import { tokenRecord } from './token-test-record.js';

const field = (name: string) => document.querySelector<HTMLInputElement>(`[name="${name}"]`);
const type = (name: string, value: string) => fireEvent.change(field(name)!, { target: { value } });
const toasts = () => {
  const state = notificationsStore.getState();
  return [...state.notifications, ...state.queue].map((toast) =>
    typeof toast.message === 'string' ? toast.message : '',
  );
};
/** The bodies of the PUTs the stub received. */
const puts = (fetch: ReturnType<typeof stubApi>) =>
  fetch.mock.calls
    .map((call) => call as unknown as [string, RequestInit | undefined])
    .filter(([url, init]) => url === '/api/token/' && init?.method === 'PUT')
    .map(
      ([, init]) =>
        JSON.parse(typeof init?.body === 'string' ? init.body : 'null') as Record<string, unknown>,
    );

const editToken = async (language: 'en' | 'zh' = 'en') => {
  await i18n.changeLanguage(language);
  const token = tokenRecord({ budget_daily: 1_000_000, rpm_limit: 60 });
  const fetch = stubApi({
    '/api/user/available_models': { success: true, data: ['gpt-4o'] },
    '/api/token/5': { success: true, data: token },
    '/api/token/': { success: true, data: token },
  });
  renderScreen(<TokenFormPage />, { path: '/token/edit/:id', at: '/token/edit/5' });
  await waitFor(() => expect(field('budget_daily')?.value).toBe('1,000,000'));
  return fetch;
};

describe('the token form: rate limits and budgets', () => {
  beforeEach(() => {
    localStorage.clear();
    notifications.clean();
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('loads and saves the budgets beside the rate limits, each shown in dollars', async () => {
    const fetch = await editToken();
    expect(field('rpm_limit')?.value).toBe('60');
    expect(screen.getByTestId('budgets').textContent).toContain('$2.00');
    type('budget_weekly', '2500000');
    fireEvent.click(screen.getByTestId('token-submit'));
    await waitFor(() => expect(puts(fetch)).toHaveLength(1));
    expect(puts(fetch)[0]).toMatchObject({
      id: 5,
      rpm_limit: 60,
      budget_5h: null,
      budget_daily: 1_000_000,
      budget_weekly: 2_500_000,
      budget_monthly: null,
    });
  });

  it('refuses a budget that is not a whole number, with a clear message (en + zh)', async () => {
    let fetch = await editToken();
    type('budget_monthly', '1.5');
    fireEvent.click(screen.getByTestId('token-submit'));
    await waitFor(() =>
      expect(toasts()).toContain('Budgets must be whole numbers of quota, 0 or more (empty: no budget).'),
    );
    expect(puts(fetch)).toHaveLength(0);
    cleanup();
    notifications.clean();
    fetch = await editToken('zh');
    type('budget_5h', '0.5');
    fireEvent.click(screen.getByTestId('token-submit'));
    await waitFor(() => expect(toasts()).toContain('预算须为不小于 0 的整数额度（留空：无预算）。'));
    expect(puts(fetch)).toHaveLength(0);
  });
});
