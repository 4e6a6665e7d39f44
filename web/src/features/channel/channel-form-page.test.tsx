// @vitest-environment happy-dom
import { notifications, notificationsStore } from '@mantine/notifications';
import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../i18n/i18n.js';
import { channelRecord } from '../../test-support/channel-record.js';
import { renderScreen, stubApi } from '../../test-support/render.js';
import { ChannelFormPage } from './channel-form-page.js';

const CATALOGUE = {
  [CHANNEL_TYPE.openAi]: ['gpt-4o-mini', 'gpt-4o'],
  [CHANNEL_TYPE.aws]: ['claude-3-haiku'],
};

const toasts = () => {
  const state = notificationsStore.getState();
  return [...state.notifications, ...state.queue].map((toast) =>
    typeof toast.message === 'string' ? toast.message : '',
  );
};
const field = (name: string) => document.querySelector<HTMLInputElement>(`[name="${name}"]`);
const type = (name: string, value: string) => fireEvent.change(field(name)!, { target: { value } });
const submit = () => fireEvent.click(screen.getByTestId('channel-submit'));
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
const sent = (fetch: ReturnType<typeof stubApi>, method: string) =>
  requests(fetch)
    .filter((request) => request.url === '/api/channel/' && request.method === method)
    .at(-1)?.body as Record<string, unknown> | undefined;

/** An AWS channel as the server answers it: no key, and no secret key (sk) in its config. */
const AWS_CHANNEL = channelRecord({
  id: 7,
  type: CHANNEL_TYPE.aws,
  name: 'bedrock',
  models: 'claude-3-haiku',
  config: '{"region":"us-west-2","ak":"AKIA"}',
});

/** The edit page of AWS_CHANNEL, loaded; the fetch stub records what the form sends. */
const editAwsChannel = async () => {
  const fetch = stubApi({
    '/api/models': { success: true, data: CATALOGUE },
    '/api/group/': { success: true, data: ['default'] },
    '/api/channel/7': { success: true, data: AWS_CHANNEL },
    '/api/channel/': { success: true, data: AWS_CHANNEL },
  });
  const { router } = renderScreen(<ChannelFormPage />, { path: '/channel/edit/:id', at: '/channel/edit/7' });
  await waitFor(() => expect(field('name')?.value).toBe('bedrock'));
  return { fetch, router };
};

describe('channel form', () => {
  beforeEach(async () => {
    // happy-dom has no FontFaceSet, which Mantine's autosize textarea listens to.
    if (!('fonts' in document))
      Object.defineProperty(document, 'fonts', {
        configurable: true,
        value: { addEventListener: () => undefined, removeEventListener: () => undefined },
      });
    localStorage.clear();
    notifications.clean();
    await i18n.changeLanguage('en');
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('shows the messages of spec §5, then creates the channel with a normalised base URL', async () => {
    const fetch = stubApi({
      '/api/models': { success: true, data: CATALOGUE },
      '/api/group/': { success: true, data: ['default', 'vip'] },
      '/api/channel/': { success: true },
    });
    const { router } = renderScreen(<ChannelFormPage />, { path: '/channel/add' });
    await screen.findByTestId('channel-form');
    expect(screen.getByTestId('channel-batch')).toBeTruthy();

    submit();
    await waitFor(() => expect(toasts()).toContain('Please fill in the channel name and channel key!'));
    type('name', 'primary');
    type('key', 'sk-1');
    submit();
    await waitFor(() => expect(toasts()).toContain('Please select at least one model!'));

    await waitFor(() => expect(requests(fetch).map((request) => request.url)).toContain('/api/models'));
    fireEvent.click(screen.getByTestId('channel-fill-type-models'));
    const pills = () => [...document.querySelectorAll('.mantine-Pill-root')].map((pill) => pill.textContent);
    await waitFor(() =>
      expect(pills()).toEqual(expect.arrayContaining(['gpt-4o-mini', 'gpt-4o', 'default'])),
    );
    type('model_mapping', '{"gpt-4o": ');
    submit();
    await waitFor(() => expect(toasts()).toContain('Model mapping must be valid JSON!'));

    type('model_mapping', '{"gpt-4o-2024-05-13": "gpt-4o"}');
    type('base_url', 'http://upstream.test/v1/');
    submit();
    await waitFor(() => expect(router.state.location.pathname).toBe('/channel'));
    expect(sent(fetch, 'POST')).toMatchObject({
      type: CHANNEL_TYPE.openAi,
      name: 'primary',
      key: 'sk-1',
      base_url: 'http://upstream.test/v1',
      models: 'gpt-4o-mini,gpt-4o',
      group: 'default',
      model_mapping: '{"gpt-4o-2024-05-13": "gpt-4o"}',
      config: '',
    });
    expect(toasts()).toContain('Channel created!');
  });

  it('turns the key into one key per line with the batch checkbox', async () => {
    stubApi({
      '/api/models': { success: true, data: CATALOGUE },
      '/api/group/': { success: true, data: ['default'] },
    });
    renderScreen(<ChannelFormPage />, { path: '/channel/add' });
    await screen.findByTestId('channel-form');
    expect(field('key')?.tagName).toBe('INPUT');
    fireEvent.click(screen.getByTestId('channel-batch'));
    expect(field('key')?.tagName).toBe('TEXTAREA');
  });

  it('edits an AWS channel: blank key, the key composed from ak|sk|region, no batch creation', async () => {
    const { fetch, router } = await editAwsChannel();
    expect(field('key')).toBeNull();
    expect(screen.getByTestId('channel-key-composed').textContent).toContain('AK|SK|Region');
    expect(screen.queryByTestId('channel-batch')).toBeNull();
    expect(field('region')?.value).toBe('us-west-2');
    expect(field('sk')?.value).toBe('');
    expect(field('sk')?.required).toBe(false);
    expect(field('sk')?.placeholder).toBe('Leave blank to keep the current secret');
    type('sk', 'new-secret');
    submit();
    await waitFor(() => expect(router.state.location.pathname).toBe('/channel'));
    const body = sent(fetch, 'PUT');
    expect(body).toMatchObject({
      id: 7,
      type: CHANNEL_TYPE.aws,
      key: 'AKIA|new-secret|us-west-2',
      models: 'claude-3-haiku',
    });
    expect(JSON.parse(String(body?.['config']))).toEqual({
      region: 'us-west-2',
      ak: 'AKIA',
      sk: 'new-secret',
    });
    expect(toasts()).toContain('Channel updated!');
  });

  it('edits an AWS channel with the secret key left blank: no key sent, the config without sk', async () => {
    const { fetch, router } = await editAwsChannel();
    type('region', 'eu-west-1');
    submit();
    await waitFor(() => expect(router.state.location.pathname).toBe('/channel'));
    const body = sent(fetch, 'PUT');
    // The server keeps the stored sk and composes the key again from the saved config.
    expect(body).toMatchObject({ id: 7, type: CHANNEL_TYPE.aws, key: '' });
    expect(JSON.parse(String(body?.['config']))).toEqual({ region: 'eu-west-1', ak: 'AKIA' });
  });

  it('edits a channel’s own timeouts, kept in its config beside the fields the form does not edit', async () => {
    const channel = channelRecord({
      id: 9,
      type: CHANNEL_TYPE.openAi,
      name: 'timed',
      models: 'gpt-4o',
      config: '{"idle_timeout":30,"organization":"org-1"}',
    });
    const fetch = stubApi({
      '/api/models': { success: true, data: CATALOGUE },
      '/api/group/': { success: true, data: ['default'] },
      '/api/channel/9': { success: true, data: channel },
      '/api/channel/': { success: true, data: channel },
    });
    const { router } = renderScreen(<ChannelFormPage />, {
      path: '/channel/edit/:id',
      at: '/channel/edit/9',
    });
    await waitFor(() => expect(field('name')?.value).toBe('timed'));
    expect(field('idle_timeout')?.value).toBe('30');
    expect(field('first_byte_timeout')?.value).toBe('');
    expect(field('connect_timeout')?.placeholder).toBe('Default');
    type('first_byte_timeout', '15.5');
    type('idle_timeout', '');
    submit();
    await waitFor(() => expect(router.state.location.pathname).toBe('/channel'));
    // Blank is the default: the field leaves the config; the others go as numbers of seconds.
    expect(JSON.parse(String(sent(fetch, 'PUT')?.['config']))).toEqual({
      organization: 'org-1',
      first_byte_timeout: 15.5,
    });
  });

  it('edits a channel’s key as several keys, one per line (rotation round-robin by default)', async () => {
    const channel = channelRecord({ id: 11, type: CHANNEL_TYPE.openAi, name: 'keys', models: 'gpt-4o' });
    const fetch = stubApi({
      '/api/models': { success: true, data: CATALOGUE },
      '/api/group/': { success: true, data: ['default'] },
      '/api/channel/11/keys': { success: true, data: [] },
      '/api/channel/11': { success: true, data: channel },
      '/api/channel/': { success: true, data: channel },
    });
    const { router } = renderScreen(<ChannelFormPage />, {
      path: '/channel/edit/:id',
      at: '/channel/edit/11',
    });
    await waitFor(() => expect(field('name')?.value).toBe('keys'));
    expect(document.querySelector('textarea[name="key"]')).not.toBeNull();
    fireEvent.change(document.querySelector('textarea[name="key"]')!, { target: { value: 'sk-a\nsk-b' } });
    expect(screen.getByTestId<HTMLInputElement>('channel-key-selection').value).toBe('Round-robin');
    submit();
    await waitFor(() => expect(router.state.location.pathname).toBe('/channel'));
    expect(sent(fetch, 'PUT')?.['key']).toBe('sk-a\nsk-b');
  });
});
