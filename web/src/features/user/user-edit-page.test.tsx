// @vitest-environment happy-dom
import { notifications, notificationsStore } from '@mantine/notifications';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../i18n/i18n.js';
import { writeStorage } from '../../lib/storage.js';
import { renderScreen, stubApi } from '../../test-support/render.js';
import { UserEditPage } from './user-edit-page.js';

const USER = {
  id: 3,
  username: 'alice',
  password: '',
  display_name: 'Alice',
  role: 1,
  status: 1,
  email: '',
  github_id: '',
  wechat_id: '',
  lark_id: '',
  oidc_id: '',
  verification_code: '',
  access_token: '',
  quota: 5_000_000,
  used_quota: 0,
  request_count: 0,
  group: 'default',
  aff_code: '',
  inviter_id: 0,
  tpm_limit: 100_000,
  budget_weekly: 2_000_000,
  budget_usage: [{ window: 'weekly', limit: 2_000_000, used: 500_000, resets_at: 1_700_000_000 }],
};

const field = (name: string) => document.querySelector<HTMLInputElement>(`[name="${name}"]`);
const type = (name: string, value: string) => fireEvent.change(field(name)!, { target: { value } });
const toasts = () => {
  const state = notificationsStore.getState();
  return [...state.notifications, ...state.queue].map((toast) =>
    typeof toast.message === 'string' ? toast.message : '',
  );
};
const puts = (fetch: ReturnType<typeof stubApi>) =>
  fetch.mock.calls
    .map((call) => call as unknown as [string, RequestInit | undefined])
    .filter(([url, init]) => url === '/api/user/' && init?.method === 'PUT')
    .map(
      ([, init]) =>
        JSON.parse(typeof init?.body === 'string' ? init.body : 'null') as Record<string, unknown>,
    );

const editAlice = async () => {
  writeStorage('user', { id: 1, username: 'root', display_name: 'Root', role: 100, status: 1 });
  const fetch = stubApi({
    '/api/group/': { success: true, data: ['default'] },
    '/api/user/3': { success: true, data: USER },
    '/api/user/': { success: true },
  });
  renderScreen(<UserEditPage />, { path: '/user/edit/:id', at: '/user/edit/3' });
  await waitFor(() => expect(field('budget_weekly')?.value).toBe('2,000,000'));
  return fetch;
};

describe("the user editor: a user's rate limits and budgets", () => {
  beforeEach(async () => {
    localStorage.clear();
    notifications.clean();
    await i18n.changeLanguage('en');
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('shows the window usage and saves the budgets with the rate limits', async () => {
    const fetch = await editAlice();
    expect(field('tpm_limit')?.value).toBe('100,000');
    expect(screen.getByTestId('budget-window-weekly').getAttribute('data-percent')).toBe('25');
    type('budget_5h', '300000');
    type('budget_weekly', '0');
    fireEvent.click(screen.getByTestId('user-submit'));
    await waitFor(() => expect(puts(fetch)).toHaveLength(1));
    expect(puts(fetch)[0]).toMatchObject({
      id: 3,
      tpm_limit: 100_000,
      budget_5h: 300_000,
      budget_daily: null,
      budget_weekly: null,
      budget_monthly: null,
    });
  });

  it('refuses a fractional budget with a clear message and sends nothing', async () => {
    const fetch = await editAlice();
    type('budget_daily', '2.5');
    fireEvent.click(screen.getByTestId('user-submit'));
    await waitFor(() =>
      expect(toasts()).toContain('Budgets must be whole numbers of quota, 0 or more (empty: no budget).'),
    );
    expect(puts(fetch)).toHaveLength(0);
  });
});
