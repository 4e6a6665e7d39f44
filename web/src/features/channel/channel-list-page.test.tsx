// @vitest-environment happy-dom
import { notifications, notificationsStore } from '@mantine/notifications';
import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../i18n/i18n.js';
import { channelRecord } from '../../test-support/channel-record.js';
import { renderScreen, stubApi } from '../../test-support/render.js';
import { ChannelListPage } from './channel-list-page.js';

const channel = channelRecord;

const CHANNELS = [
  channel({ id: 1, type: CHANNEL_TYPE.openAi, response_time: 0, balance: 12.345 }),
  channel({
    id: 2,
    type: CHANNEL_TYPE.openAiSb,
    name: 'sb',
    response_time: 800,
    balance: 250_000,
    status: 2,
  }),
  channel({
    id: 3,
    type: CHANNEL_TYPE.aigc2d,
    name: 'aigc',
    response_time: 2500,
    balance: 25_000,
    status: 3,
  }),
  channel({ id: 4, type: CHANNEL_TYPE.anthropic, name: 'claude', response_time: 4200 }),
  channel({ id: 5, type: CHANNEL_TYPE.closeAi, name: 'closeai', response_time: 9000, balance: 3 }),
];
const IDLE = { running: false, scope: '', done: 0, total: 0, failed: 0 };

const toasts = () => {
  const state = notificationsStore.getState();
  return [...state.notifications, ...state.queue].map((toast) =>
    typeof toast.message === 'string' ? toast.message : '',
  );
};
const row = (id: number) => {
  const found = screen.getAllByTestId('channel-row').find((element) => element.dataset['id'] === String(id));
  if (!found) throw new Error(`no row ${id}`);
  return within(found);
};
/** The requests the stub received: address, method and JSON body. */
const requests = (fetch: ReturnType<typeof stubApi>) =>
  fetch.mock.calls.map((call) => {
    // The stub is typed with fetch's first parameter; the console always passes the second.
    const [input, init] = call as unknown as [unknown, RequestInit | undefined];
    const options = init ?? {};
    return {
      url: typeof input === 'string' ? input : '',
      method: options.method ?? 'GET',
      body: JSON.parse(typeof options.body === 'string' ? options.body : 'null') as unknown,
    };
  });
/** The body of the last PUT /api/channel/. */
const lastPut = (fetch: ReturnType<typeof stubApi>) =>
  requests(fetch)
    .filter((request) => request.url === '/api/channel/' && request.method === 'PUT')
    .at(-1)?.body;

describe('channel list', () => {
  beforeEach(async () => {
    localStorage.clear();
    notifications.clean();
    await i18n.changeLanguage('en');
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('shows type, status, response-time badges and the balance of each type', async () => {
    stubApi({
      '/api/channel/test/status': { success: true, data: IDLE },
      '/api/channel/?p=0': { success: true, data: CHANNELS },
    });
    renderScreen(<ChannelListPage />, { path: '/channel' });
    await screen.findAllByTestId('channel-row');
    const levels = screen.getAllByTestId('channel-response-time').map((badge) => badge.dataset['level']);
    expect(levels).toEqual(['untested', 'green', 'olive', 'yellow', 'red']);
    expect(row(1).getByTestId('channel-response-time').textContent).toBe('Untested');
    expect(row(3).getByTestId('channel-response-time').textContent).toBe('2.50 s');
    expect(screen.getAllByTestId('channel-balance').map((cell) => cell.textContent)).toEqual([
      '$12.35',
      '¥25.00',
      '25.0k',
      'Not supported',
      '¥3.00',
    ]);
    expect(screen.getAllByTestId('channel-status').map((badge) => badge.textContent)).toEqual([
      'Enabled',
      'Manually disabled',
      'Auto disabled',
      'Enabled',
      'Enabled',
    ]);
    expect(row(4).getByText('Anthropic Claude')).toBeTruthy();
    expect(screen.getByTestId('channel-prompt')).toBeTruthy();
  });

  it("shows a channel's breaker when it is cooling down or probing, in English and Chinese", async () => {
    stubApi({
      '/api/channel/test/status': { success: true, data: IDLE },
      '/api/channel/?p=0': {
        success: true,
        data: [
          channel({ id: 1, breaker_state: 'closed', cooled_until: 0 }),
          channel({ id: 2, name: 'cooling', breaker_state: 'open', cooled_until: 1_900_000_000 }),
          channel({ id: 3, name: 'probing', breaker_state: 'half_open', cooled_until: 1_800_000_000 }),
        ],
      },
    });
    renderScreen(<ChannelListPage />, { path: '/channel' });
    await screen.findAllByTestId('channel-row');
    expect(row(1).queryByTestId('channel-breaker')).toBeNull();
    expect(row(2).getByTestId('channel-breaker').textContent).toBe('Cooling down');
    expect(row(3).getByTestId('channel-breaker').textContent).toBe('Probing');
    await i18n.changeLanguage('zh');
    await waitFor(() => expect(row(2).getByTestId('channel-breaker').textContent).toBe('冷却中'));
    expect(row(3).getByTestId('channel-breaker').textContent).toBe('探测中');
  });

  it('updates a balance, priority, weight and status, and tests one channel with its first model', async () => {
    const fetch = stubApi({
      '/api/channel/test/status': { success: true, data: IDLE },
      '/api/channel/test/1': { success: true, message: '', time: 0.42, model: 'gpt-4o-mini' } as never,
      '/api/channel/update_balance/1/': { success: true, message: '', balance: 50 } as never,
      '/api/channel/?p=0': { success: true, data: [channel({ weight: 5 })] },
      '/api/channel/': { success: true, data: channel({ weight: 5 }) },
    });
    renderScreen(<ChannelListPage />, { path: '/channel' });
    await screen.findByTestId('channel-row');

    fireEvent.click(screen.getByTestId('channel-balance'));
    await waitFor(() => expect(toasts()).toContain('Balance of channel openai updated!'));

    const priority = screen.getByTestId('channel-priority');
    fireEvent.change(priority, { target: { value: '' } });
    fireEvent.blur(priority);
    fireEvent.change(priority, { target: { value: '7' } });
    fireEvent.blur(priority);
    await waitFor(() => expect(lastPut(fetch)).toEqual({ id: 1, priority: 7 }));
    const weight = screen.getByTestId('channel-weight');
    fireEvent.change(weight, { target: { value: '-3' } });
    fireEvent.blur(weight);
    await waitFor(() => expect(lastPut(fetch)).toEqual({ id: 1, weight: 0 }));
    expect(weight).toHaveProperty('value', '0');

    fireEvent.click(screen.getByTestId('channel-toggle'));
    await waitFor(() => expect(lastPut(fetch)).toEqual({ id: 1, status: 2 }));

    fireEvent.click(screen.getByTestId('channel-test'));
    await waitFor(() =>
      expect(toasts()).toContain('Channel openai tested successfully with gpt-4o-mini in 0.42 s.'),
    );
    expect(requests(fetch).map((request) => request.url)).toContain('/api/channel/test/1?model=gpt-4o-mini');
  });

  it('starts a test of all channels, shows its progress and reports the end', async () => {
    const running = { running: true, scope: 'all', done: 1, total: 4, failed: 1 };
    const fetch = stubApi({
      '/api/channel/test/status': [
        { success: true, data: IDLE },
        { success: true, data: running },
        { success: true, data: { ...running, running: false, done: 4 } },
      ],
      '/api/channel/test?scope=all': { success: true },
      '/api/channel/?p=0': { success: true, data: CHANNELS },
    });
    renderScreen(<ChannelListPage />, { path: '/channel' });
    await screen.findAllByTestId('channel-row');
    fireEvent.click(screen.getByTestId('channel-test-all'));
    expect((await screen.findByTestId('channel-test-progress')).textContent).toContain(
      'Testing channels: 1 / 4 done, 1 failed',
    );
    await waitFor(() => expect(toasts()).toContain('Channel test finished: 4 tested, 1 failed.'), {
      timeout: 3000,
    });
    expect(screen.queryByTestId('channel-test-progress')).toBeNull();
    expect(requests(fetch).map((request) => request.url)).toContain('/api/channel/test?scope=all');
  });

  it('deletes the disabled channels after a confirmation and reports the count', async () => {
    const fetch = stubApi({
      '/api/channel/test/status': { success: true, data: IDLE },
      '/api/channel/disabled': { success: true, data: 2 },
      '/api/channel/?p=0': { success: true, data: CHANNELS },
    });
    renderScreen(<ChannelListPage />, { path: '/channel' });
    await screen.findAllByTestId('channel-row');
    fireEvent.click(screen.getByTestId('channel-delete-disabled'));
    fireEvent.click(await screen.findByTestId('confirm'));
    await waitFor(() => expect(toasts()).toContain('2 disabled channels deleted!'));
    expect(requests(fetch).find((request) => request.url === '/api/channel/disabled')?.method).toBe('DELETE');
  });

  it('shows the empty state', async () => {
    stubApi({
      '/api/channel/test/status': { success: true, data: IDLE },
      '/api/channel/?p=0': { success: true, data: [] },
    });
    renderScreen(<ChannelListPage />, { path: '/channel' });
    expect((await screen.findByTestId('list-empty')).textContent).toContain('No channels yet');
  });
});
