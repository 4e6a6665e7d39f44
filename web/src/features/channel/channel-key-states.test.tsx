// @vitest-environment happy-dom
import { notifications } from '@mantine/notifications';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../i18n/i18n.js';
import { renderScreen, stubApi } from '../../test-support/render.js';
import { EMPTY_CHANNEL_FORM } from './channel-form-model.js';
import { ChannelKeyStates } from './channel-key-states.js';

const KEYS = [
  { index: 0, id: 'aaaaaaaaaaaaaaaa', masked: '…0001', enabled: true, reason: '', disabled_at: 0 },
  {
    index: 1,
    id: 'bbbbbbbbbbbbbbbb',
    masked: '…0002',
    enabled: false,
    reason: 'Incorrect API key provided',
    disabled_at: 1_700_000_000,
  },
];

describe('a channel’s keys in its form', () => {
  beforeEach(async () => {
    notifications.clean();
    await i18n.changeLanguage('en');
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('shows each key masked with its state and re-enables a disabled one', async () => {
    const fetch = stubApi({
      '/api/channel/7/keys/enable': { success: true },
      '/api/channel/7/keys': [
        { success: true, data: KEYS },
        { success: true, data: KEYS.map((key) => ({ ...key, enabled: true })) },
      ],
    });
    renderScreen(<ChannelKeyStates id={7} form={EMPTY_CHANNEL_FORM} set={() => undefined} />);
    await waitFor(() => expect(screen.getByTestId('channel-key-1').textContent).toContain('…0002'));
    expect(screen.getByTestId('channel-key-0').textContent).toContain('Serving');
    expect(screen.getByTestId('channel-key-1').textContent).toContain('Incorrect API key provided');
    fireEvent.click(screen.getByRole('button', { name: 'Enable' }));
    await waitFor(() => expect(screen.getByTestId('channel-key-1').textContent).toContain('Serving'));
    const enable = fetch.mock.calls.find(([url]) => url === '/api/channel/7/keys/enable');
    const init = (enable as unknown as [string, RequestInit])[1];
    expect(init.method).toBe('POST');
    expect(JSON.parse(init.body as string)).toEqual({ key_id: 'bbbbbbbbbbbbbbbb' });
  });

  it('sets the rotation in the config, round-robin by leaving it out', async () => {
    stubApi({ '/api/channel/': { success: true, data: [] } });
    const set = vi.fn();
    renderScreen(
      <ChannelKeyStates
        id={0}
        form={{ ...EMPTY_CHANNEL_FORM, otherConfig: { key_selection: 'random', a: 1 } }}
        set={set}
      />,
    );
    expect(screen.getByTestId<HTMLInputElement>('channel-key-selection').value).toBe('Random');
    fireEvent.click(screen.getByTestId('channel-key-selection'));
    fireEvent.click(await screen.findByRole('option', { name: 'Round-robin' }));
    expect(set).toHaveBeenCalledWith('otherConfig', { a: 1 });
  });
});
