// @vitest-environment happy-dom
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../i18n/i18n.js';
import { renderScreen, stubApi } from '../../test-support/render.js';
import { TokenListPage } from './token-list-page.js';
import { tokenRecord } from './token-test-record.js';

const TOKENS = [
  tokenRecord({
    id: 5,
    name: 'agent',
    budget_daily: 1_000_000,
    budget_monthly: 10_000_000,
    budget_usage: [
      { window: 'daily', limit: 1_000_000, used: 950_000, resets_at: 1_700_086_400 },
      { window: 'monthly', limit: 10_000_000, used: 2_500_000, resets_at: 1_702_000_000 },
    ],
  }),
  tokenRecord({ id: 6, name: 'plain' }),
];

describe('the token list: budget usage', () => {
  beforeEach(async () => {
    localStorage.clear();
    await i18n.changeLanguage('en');
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('shows each budget window as a bar of what it holds, and nothing for a token without budgets', async () => {
    stubApi({ '/api/token/': { success: true, data: TOKENS } });
    renderScreen(<TokenListPage />, { path: '/token' });
    await waitFor(() => expect(screen.getAllByTestId('token-row')).toHaveLength(2));
    const [agent, plain] = screen.getAllByTestId('token-row');
    const daily = within(agent!).getByTestId('budget-window-daily');
    expect(daily.getAttribute('data-percent')).toBe('95');
    expect(daily.textContent).toContain('Day · $1.90 of $2.00');
    expect(within(agent!).getByTestId('budget-window-monthly').getAttribute('data-percent')).toBe('25');
    expect(within(agent!).queryByTestId('budget-window-5h')).toBeNull();
    expect(within(plain!).queryByTestId('budget-usage')).toBeNull();
  });
});
