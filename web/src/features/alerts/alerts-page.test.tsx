// @vitest-environment happy-dom
import { notifications } from '@mantine/notifications';
import type { AlertDelivery } from '@sluice/contract/schemas/alerts';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../i18n/i18n.js';
import { writeStorage } from '../../lib/storage.js';
import { renderScreen, stubApi } from '../../test-support/render.js';
import { AlertsPage } from './alerts-page.js';

const delivery = (id: number, overrides: Partial<AlertDelivery> = {}): AlertDelivery => ({
  id,
  created_at: 1_700_000_000 + id,
  updated_at: 1_700_000_000 + id,
  event: 'channel.disabled',
  object_id: '7',
  webhook: 'ops',
  url: 'https://alerts.example.com/…',
  status: 'delivered',
  attempts: 1,
  response_code: 200,
  last_error: '',
  body: '{}',
  ...overrides,
});

const WEBHOOKS = {
  success: true,
  data: [{ name: 'ops', url: 'https://alerts.example.com/…', events: [] }],
} as never;
const DELIVERIES = {
  success: true,
  data: [
    delivery(2, {
      status: 'failed',
      attempts: 5,
      response_code: 500,
      last_error: 'the receiver answered HTTP 500',
    }),
    delivery(1),
  ],
  total: 2,
} as never;

const OPTIONS = {
  success: true,
  data: [
    { key: 'AlertCooldownMinutes', value: '10' },
    { key: 'AlertWebhookAttempts', value: '5' },
    { key: 'AlertRetryBaseSeconds', value: '2' },
  ],
} as never;

const signIn = (role: number) =>
  writeStorage('user', { id: 1, username: 'someone', display_name: 'Someone', role, status: 1 });

describe('the alerts screen', () => {
  beforeEach(async () => {
    localStorage.clear();
    notifications.clean();
    await i18n.changeLanguage('en');
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('lists the webhooks and the deliveries, and sends a test to a webhook', async () => {
    signIn(100);
    const fetch = stubApi({
      '/api/alert/webhooks': WEBHOOKS,
      '/api/alert/deliveries': DELIVERIES,
      '/api/option/': OPTIONS,
      '/api/alert/test': { success: true, data: delivery(3, { event: 'test', object_id: '' }) },
    });
    renderScreen(<AlertsPage />, { path: '/alerts' });
    await waitFor(() => expect(screen.getAllByTestId('alert-delivery')).toHaveLength(2));
    const [failed, delivered] = screen.getAllByTestId('alert-delivery');
    expect(within(failed!).getByTestId('alert-status').textContent).toBe('Failed');
    expect(within(failed!).getByText('the receiver answered HTTP 500')).toBeTruthy();
    expect(within(delivered!).getByText('Channel disabled #7')).toBeTruthy();
    const hook = await screen.findByTestId('alert-webhook');
    expect(within(hook).getByText('All events')).toBeTruthy();
    fireEvent.click(within(hook).getByTestId('alert-send-test'));
    await waitFor(() => {
      const calls = fetch.mock.calls as unknown as [string, RequestInit | undefined][];
      const posted = calls.find(([url]) => url.startsWith('/api/alert/test'));
      expect(posted?.[1]?.body).toBe('{"name":"ops"}');
    });
    expect(screen.getByTestId('alert-webhook-editor')).toBeTruthy();
  });

  it('changes the cooldown, attempts and first wait at once', async () => {
    signIn(10);
    const fetch = stubApi({
      '/api/alert/webhooks': WEBHOOKS,
      '/api/alert/deliveries': DELIVERIES,
      '/api/option/batch': { success: true },
      '/api/option/': OPTIONS,
    });
    renderScreen(<AlertsPage />, { path: '/alerts' });
    const cooldown = await screen.findByTestId('alert-setting-AlertCooldownMinutes');
    expect((cooldown as HTMLInputElement).value).toBe('10');
    fireEvent.change(cooldown, { target: { value: '30' } });
    fireEvent.click(screen.getByTestId('alert-settings-save'));
    await waitFor(() => {
      const calls = fetch.mock.calls as unknown as [string, { body?: string } | undefined][];
      const put = calls.find(([url]) => url.startsWith('/api/option/batch'));
      expect(JSON.parse(put?.[1]?.body ?? 'null')).toEqual([
        { key: 'AlertCooldownMinutes', value: '30' },
        { key: 'AlertWebhookAttempts', value: '5' },
        { key: 'AlertRetryBaseSeconds', value: '2' },
      ]);
    });
  });

  it('keeps the webhook list editor for root', async () => {
    signIn(10);
    stubApi({
      '/api/alert/webhooks': WEBHOOKS,
      '/api/alert/deliveries': DELIVERIES,
      '/api/option/': OPTIONS,
    });
    renderScreen(<AlertsPage />, { path: '/alerts' });
    await screen.findByTestId('alert-webhook');
    expect(screen.queryByTestId('alert-webhook-editor')).toBeNull();
  });

  it('speaks Chinese', async () => {
    signIn(100);
    await i18n.changeLanguage('zh');
    stubApi({
      '/api/alert/webhooks': WEBHOOKS,
      '/api/alert/deliveries': DELIVERIES,
      '/api/option/': OPTIONS,
    });
    renderScreen(<AlertsPage />, { path: '/alerts' });
    await waitFor(() => expect(screen.getAllByTestId('alert-delivery')).toHaveLength(2));
    expect(screen.getAllByTestId('alert-status').map((badge) => badge.textContent)).toEqual([
      '失败',
      '已送达',
    ]);
    expect(screen.getByText('发送测试')).toBeTruthy();
  });
});
