// @vitest-environment happy-dom
import type { Log } from '@sluice/contract/schemas/log';
import { LOG_TYPE } from '@sluice/contract/statuses';
import { notifications } from '@mantine/notifications';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../i18n/i18n.js';
import { writeStorage } from '../../lib/storage.js';
import { renderScreen, stubApi } from '../../test-support/render.js';
import { LogPage } from './log-page.js';

const log = (id: number, client_format: string, model_name: string): Log => ({
  id,
  user_id: 2,
  created_at: 1_700_000_000 + id,
  type: LOG_TYPE.consume,
  content: 'model ratio 1.50, group ratio 1.00, completion ratio 5.00, cache read 1800 tokens × 0.1',
  username: 'alice',
  token_name: 'key',
  model_name,
  quota: 4583,
  prompt_tokens: 2098,
  completion_tokens: 503,
  channel: 3,
  request_id: `req-${id}`,
  elapsed_time: 900,
  is_stream: true,
  client_format,
});

const LOGS = [log(3, 'anthropic', 'claude-sonnet-4-5'), log(2, 'responses', 'gpt-5'), log(1, '', 'gpt-4o')];

/** The addresses the page fetched, in order. */
const urls = (fetch: ReturnType<typeof stubApi>) =>
  fetch.mock.calls.map((call) => (call as unknown as [string])[0]);

describe('the logs screen: client formats', () => {
  beforeEach(async () => {
    localStorage.clear();
    notifications.clean();
    await i18n.changeLanguage('en');
    writeStorage('user', { id: 2, username: 'alice', display_name: 'Alice', role: 1, status: 1 });
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('shows each row’s client format as a short label, none for rows that do not say it', async () => {
    stubApi({
      '/api/log/self/stat': { success: true, data: { quota: 0, token: 0 } },
      '/api/log/self/': { success: true, data: LOGS },
    });
    renderScreen(<LogPage />, { path: '/log' });
    await waitFor(() => expect(screen.getAllByTestId('log-row')).toHaveLength(3));
    expect(screen.getByRole('columnheader', { name: 'Format' })).toBeTruthy();
    const labels = screen
      .getAllByTestId('log-row')
      .map((row) => within(row).queryByTestId('log-client-format-badge')?.textContent ?? '');
    expect(labels).toEqual(['Anthropic', 'Responses', '']);
  });

  it('filters the rows and the statistic by client format', async () => {
    const fetch = stubApi({
      '/api/log/self/stat': { success: true, data: { quota: 0, token: 0 } },
      '/api/log/self/': { success: true, data: LOGS },
    });
    renderScreen(<LogPage />, { path: '/log' });
    await waitFor(() => expect(screen.getAllByTestId('log-row')).toHaveLength(3));
    expect(urls(fetch).some((url) => url.includes('client_format'))).toBe(false);
    fireEvent.click(screen.getByTestId('log-client-format'));
    fireEvent.click(await screen.findByRole('option', { name: 'Anthropic', hidden: true }));
    fireEvent.click(screen.getByTestId('log-search'));
    await waitFor(() => {
      const filtered = urls(fetch).filter((url) => url.includes('client_format=anthropic'));
      expect(filtered.some((url) => url.startsWith('/api/log/self/?'))).toBe(true);
      expect(filtered.some((url) => url.startsWith('/api/log/self/stat?'))).toBe(true);
    });
  });
});

describe('the logs screen: the routing decision', () => {
  beforeEach(async () => {
    localStorage.clear();
    notifications.clean();
    await i18n.changeLanguage('en');
    writeStorage('user', { id: 1, username: 'root', display_name: 'Root', role: 100, status: 1 });
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('shows an administrator each attempt of a row, in English and Chinese', async () => {
    const routed: Log = {
      ...log(5, 'openai', 'gpt-4o'),
      routing: {
        strategy: 'least_in_flight',
        affinity: true,
        attempts: [
          { channel: 7, key: 1, status: 500, reason: 'server_error', ms: 31 },
          { channel: 3, key: 0, status: 200, reason: '', ms: 420 },
        ],
      },
    };
    stubApi({
      '/api/log/stat': { success: true, data: { quota: 0, token: 0 } },
      '/api/log/': { success: true, data: [routed, log(4, 'openai', 'gpt-4o')] },
    });
    renderScreen(<LogPage />, { path: '/log' });
    await waitFor(() => expect(screen.getAllByTestId('log-row')).toHaveLength(2));
    const [first, second] = screen.getAllByTestId('log-row');
    expect(within(second!).queryByTestId('log-routing')).toBeNull();
    expect(within(first!).getByTestId('log-routing').textContent).toContain(
      'Attempts (least_in_flight) · affinity',
    );
    expect(
      within(first!)
        .getAllByTestId('log-attempt')
        .map((attempt) => attempt.textContent),
    ).toEqual(['channel 7, key 1: 500 server_error, 31 ms', 'channel 3, key 0: 200, 420 ms']);
    await i18n.changeLanguage('zh');
    await waitFor(() =>
      expect(within(first!).getAllByTestId('log-attempt')[0]?.textContent).toBe(
        '渠道 7，密钥 1：500 server_error，31 毫秒',
      ),
    );
  });
});
