// @vitest-environment happy-dom
import type { LiveDashboard, UserLiveDashboard } from '@sluice/contract/schemas/live-dashboard';
import { cleanup, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../i18n/i18n.js';
import { writeStorage } from '../../lib/storage.js';
import { renderScreen, stubApi } from '../../test-support/render.js';
import { LIVE_POLL_MS } from './live-api.js';
import { hourTotals, liveChartRows, percent } from './live-model.js';
import { LiveSection } from './live-section.js';

const START = 1_764_300_000 - (1_764_300_000 % 60);
const minutes = (requests: readonly number[]) =>
  requests.map((count, index) => ({ minute: START + index * 60, requests: count, tokens: count * 120 }));

const gateway = (rpm: number): LiveDashboard => ({
  now: START + 150,
  minutes: minutes([3, 4, rpm]),
  rpm,
  tpm: rpm * 120,
  channels: [{ channel_id: 4, attempts: 8, errors: 2, error_rate: 0.25, first_byte_ms: 412 }],
  models: [{ model: 'gpt-4o', prompt_tokens: 900, cached_tokens: 360, cache_hit_rate: 0.4 }],
  channel_states: [
    { id: 7, name: 'backup', state: 'cooling', cooled_until: START + 300 },
    { id: 9, name: 'old', state: 'disabled', cooled_until: 0 },
  ],
});

const own: UserLiveDashboard = {
  now: START + 150,
  minutes: minutes([1, 0, 2]),
  rpm: 2,
  tpm: 240,
  spent_today: 500_000,
};

const signIn = (role: number) =>
  writeStorage('user', { id: 2, username: 'alice', display_name: 'Alice', role, status: 1 });

describe('the live section of the dashboard', () => {
  beforeEach(async () => {
    localStorage.clear();
    await i18n.changeLanguage('en');
  });
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('shows an administrator the gateway’s rates, channels, cache hits and cooled channels, read again while open', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    signIn(10);
    const fetch = stubApi({
      '/api/dashboard/live': [
        { success: true, data: gateway(5) },
        { success: true, data: gateway(9) },
      ],
    });
    renderScreen(<LiveSection />);
    await waitFor(() => expect(screen.getByTestId('live-rpm').textContent).toBe('5'));
    expect(screen.getByText('Live: the whole gateway, last hour')).toBeTruthy();
    expect(screen.getByTestId('live-tpm').textContent).toBe('600');
    expect(screen.getByTestId('live-hour-requests').textContent).toBe('12');
    expect(screen.getByTestId('live-channel-row').textContent).toContain('25.0%');
    expect(screen.getByTestId('live-channel-row').textContent).toContain('412 ms');
    expect(screen.getByTestId('live-model-row').textContent).toContain('40.0%');
    expect(screen.getAllByTestId('live-channel-state').map((badge) => badge.textContent)).toEqual([
      '#7 backup · cooling down',
      '#9 old · disabled',
    ]);
    await vi.advanceTimersByTimeAsync(LIVE_POLL_MS + 100);
    await waitFor(() => expect(screen.getByTestId('live-rpm').textContent).toBe('9'));
    expect(fetch.mock.calls.length).toBeGreaterThanOrEqual(2);
  });

  it('shows a user their own rates and today’s spend, in Chinese too, and nothing of the gateway', async () => {
    signIn(1);
    const fetch = stubApi({ '/api/user/dashboard/live': { success: true, data: own } });
    await i18n.changeLanguage('zh');
    renderScreen(<LiveSection />);
    await waitFor(() => expect(screen.getByTestId('live-rpm').textContent).toBe('2'));
    expect(screen.getByText('实时：您最近一小时')).toBeTruthy();
    expect(screen.getByTestId('live-tpm').textContent).toBe('240');
    expect(screen.getByTestId('live-spent-today').textContent).toBe('$1.00');
    expect(screen.queryByTestId('live-channel-row')).toBeNull();
    const paths = fetch.mock.calls.map((call) => String((call as unknown as [string])[0]));
    expect(paths.every((path) => path.startsWith('/api/user/dashboard/live'))).toBe(true);
  });

  it('labels minutes, sums the hour and writes rates as percentages', () => {
    const rows = liveChartRows(minutes([1, 2]));
    expect(rows.map((row) => row.requests)).toEqual([1, 2]);
    expect(rows[0]?.label).toMatch(/^\d\d:\d\d$/);
    expect(hourTotals(minutes([1, 2]))).toEqual({ requests: 3, tokens: 360 });
    expect(percent(0.1234)).toBe('12.3%');
    expect(percent(null)).toBe('–');
  });
});
