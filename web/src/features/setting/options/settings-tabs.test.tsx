// @vitest-environment happy-dom
import { notifications, notificationsStore } from '@mantine/notifications';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../../i18n/i18n.js';
import { renderScreen, stubApi } from '../../../test-support/render.js';
import { OperationSettings } from '../operation/operation-settings.js';
import { SystemSettings } from '../system/system-settings.js';

const status = {
  version: 'v1',
  start_time: 1,
  email_verification: false,
  github_oauth: false,
  github_client_id: '',
  lark_client_id: '',
  system_name: 'Sluice',
  logo: '',
  footer_html: '',
  wechat_qrcode: '',
  wechat_login: false,
  server_address: '',
  turnstile_check: false,
  turnstile_site_key: '',
  top_up_link: '',
  chat_link: '',
  quota_per_unit: 500000,
  display_in_currency: true,
  oidc: false,
  oidc_client_id: '',
  oidc_well_known: '',
  pricing_public: false,
};

/** What GET /api/option/ answers: no secrets, ratios as stored. */
const OPTIONS = Object.entries({
  PasswordLoginEnabled: 'true',
  RegisterEnabled: 'true',
  EmailDomainRestrictionEnabled: 'false',
  EmailDomainWhitelist: 'gmail.com,qq.com',
  ServerAddress: 'https://old.example.com',
  SMTPServer: 'smtp.example.com',
  SMTPPort: '587',
  SMTPAccount: 'mailer',
  SMTPFrom: '',
  QuotaPerUnit: '500000',
  RetryTimes: '0',
  TopUpLink: '',
  ChatLink: '',
  ModelRatio: '{"gpt-4o-mini":0.075}',
  CompletionRatio: '{}',
  GroupRatio: '{"default":1}',
}).map(([key, value]) => ({ key, value }));

const ROOT = { id: 1, username: 'root', display_name: 'Root', role: 100, status: 1 };

const toasts = () =>
  notificationsStore
    .getState()
    .notifications.map((toast) => (typeof toast.message === 'string' ? toast.message : ''));

/** The bodies of the PUT /api/option/ calls so far. */
const puts = (fetch: ReturnType<typeof stubApi>) =>
  fetch.mock.calls
    .map((call) => call as unknown as [string, RequestInit | undefined])
    .filter(([url, init]) => url === '/api/option/' && init?.method === 'PUT')
    .map(
      ([, init]) =>
        JSON.parse(typeof init?.body === 'string' ? init.body : '') as { key: string; value: string },
    );

/** The bodies of the PUT /api/option/batch calls so far (a section saving several options). */
const batches = (fetch: ReturnType<typeof stubApi>) =>
  fetch.mock.calls
    .map((call) => call as unknown as [string, RequestInit | undefined])
    .filter(([url, init]) => url === '/api/option/batch' && init?.method === 'PUT')
    .map(
      ([, init]) =>
        JSON.parse(typeof init?.body === 'string' ? init.body : '') as { key: string; value: string }[],
    );

const type = (testId: string, value: string) =>
  fireEvent.change(screen.getByTestId(testId), { target: { value } });

describe('the root settings tabs: save rules of spec §5', () => {
  let fetch: ReturnType<typeof stubApi>;
  beforeEach(async () => {
    localStorage.clear();
    // The tabs show the options the signed-in user may change: root here (an admin's are below).
    localStorage.setItem('user', JSON.stringify(ROOT));
    notifications.clean();
    await i18n.changeLanguage('en');
    // happy-dom has no FontFaceSet; Mantine's autosizing textareas listen to it.
    if (!('fonts' in document)) Object.defineProperty(document, 'fonts', { value: new EventTarget() });
    fetch = stubApi({
      '/api/option/batch': { success: true },
      '/api/option/defaults': { success: true, data: OPTIONS },
      '/api/option/': { success: true, data: OPTIONS },
      '/api/channel/served_models': { success: true, data: [] },
      '/api/status': { success: true, data: status },
    });
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('saves the server address without its trailing slash, then reloads the status', async () => {
    renderScreen(<SystemSettings />, { path: '/setting' });
    await screen.findByTestId('system-settings');
    expect(screen.getByTestId<HTMLInputElement>('option-ServerAddress').value).toBe(
      'https://old.example.com',
    );
    type('option-ServerAddress', 'https://gw.example.com/');
    fireEvent.click(screen.getByTestId('save-server'));
    await waitFor(() =>
      expect(puts(fetch)).toEqual([{ key: 'ServerAddress', value: 'https://gw.example.com' }]),
    );
    await waitFor(() => expect(fetch.mock.calls.some(([url]) => url === '/api/status')).toBe(true));
  });

  it('never pre-fills a secret and sends it only when typed; unchanged fields stay unsent; several in one batch', async () => {
    renderScreen(<SystemSettings />, { path: '/setting' });
    await screen.findByTestId('system-settings');
    expect(screen.getByTestId<HTMLInputElement>('option-SMTPToken').value).toBe('');
    fireEvent.click(screen.getByTestId('save-smtp'));
    await waitFor(() => expect(toasts()).toContain('Nothing changed.'));
    expect(puts(fetch)).toEqual([]);

    type('option-SMTPToken', 'app-password');
    type('option-SMTPAccount', 'postmaster');
    fireEvent.click(screen.getByTestId('save-smtp'));
    await waitFor(() =>
      expect(batches(fetch)).toEqual([
        [
          { key: 'SMTPAccount', value: 'postmaster' },
          { key: 'SMTPToken', value: 'app-password' },
        ],
      ]),
    );
    expect(puts(fetch)).toEqual([]);
    await waitFor(() => expect(screen.getByTestId<HTMLInputElement>('option-SMTPToken').value).toBe(''));
  });

  it('ignores an empty or present whitelist domain and saves the list only when changed', async () => {
    renderScreen(<SystemSettings />, { path: '/setting' });
    await screen.findByTestId('system-settings');
    expect(screen.getAllByTestId('whitelist-domain')).toHaveLength(2);
    fireEvent.click(screen.getByTestId('whitelist-add'));
    type('whitelist-input', 'qq.com');
    fireEvent.click(screen.getByTestId('whitelist-add'));
    expect(screen.getAllByTestId('whitelist-domain')).toHaveLength(2);
    fireEvent.click(screen.getByTestId('save-whitelist'));
    await waitFor(() => expect(toasts()).toContain('Nothing changed.'));
    expect(puts(fetch)).toEqual([]);

    type('whitelist-input', ' example.com ');
    fireEvent.click(screen.getByTestId('whitelist-add'));
    expect(screen.getAllByTestId('whitelist-domain')).toHaveLength(3);
    fireEvent.click(screen.getByTestId('save-whitelist'));
    await waitFor(() =>
      expect(puts(fetch)).toEqual([{ key: 'EmailDomainWhitelist', value: 'gmail.com,qq.com,example.com' }]),
    );
  });

  it('asks before turning off password login; other switches save at once', async () => {
    renderScreen(<SystemSettings />, { path: '/setting' });
    await screen.findByTestId('system-settings');
    fireEvent.click(screen.getByTestId('option-PasswordLoginEnabled'));
    fireEvent.click(await screen.findByTestId('password-login-cancel'));
    expect(puts(fetch)).toEqual([]);

    fireEvent.click(screen.getByTestId('option-PasswordLoginEnabled'));
    fireEvent.click(await screen.findByTestId('password-login-confirm'));
    await waitFor(() => expect(puts(fetch)).toEqual([{ key: 'PasswordLoginEnabled', value: 'false' }]));

    fireEvent.click(screen.getByTestId('option-EmailDomainRestrictionEnabled'));
    await waitFor(() =>
      expect(puts(fetch)).toContainEqual({ key: 'EmailDomainRestrictionEnabled', value: 'true' }),
    );
  });

  it('refuses a ratio that is not valid JSON and saves only what changed', async () => {
    renderScreen(<OperationSettings />, { path: '/setting' });
    await screen.findByTestId('operation-settings');
    expect(screen.getByTestId<HTMLTextAreaElement>('option-CompletionRatio').value).toBe('');
    expect(screen.getByTestId<HTMLTextAreaElement>('option-GroupRatio').value).toBe('{\n  "default": 1\n}');
    type('option-ModelRatio', '{"gpt-4o-mini": }');
    fireEvent.click(screen.getByTestId('save-ratio'));
    await waitFor(() => expect(toasts()).toContain('The model ratio is not a valid JSON string'));
    expect(puts(fetch)).toEqual([]);

    type('option-ModelRatio', '{"gpt-4o-mini": 0.1}');
    fireEvent.click(screen.getByTestId('save-ratio'));
    await waitFor(() => expect(puts(fetch)).toEqual([{ key: 'ModelRatio', value: '{"gpt-4o-mini": 0.1}' }]));

    type('option-ChatLink', 'https://chat.example.com');
    fireEvent.click(screen.getByTestId('save-general'));
    await waitFor(() =>
      expect(puts(fetch)).toContainEqual({ key: 'ChatLink', value: 'https://chat.example.com' }),
    );
    expect(puts(fetch)).toHaveLength(2);
  });

  it('edits the cache read and write ratios beside the others, refusing what is not JSON', async () => {
    renderScreen(<OperationSettings />, { path: '/setting' });
    await screen.findByTestId('operation-settings');
    expect(screen.getByTestId<HTMLTextAreaElement>('option-CacheReadRatio').value).toBe('');
    type('option-CacheWriteRatio', '{"claude-x": ');
    fireEvent.click(screen.getByTestId('save-ratio'));
    await waitFor(() => expect(toasts()).toContain('The cache write ratio is not a valid JSON string'));
    type('option-CacheWriteRatio', '{"claude-x": 1.25}');
    type('option-CacheReadRatio', '{"claude-x": 0.1}');
    fireEvent.click(screen.getByTestId('save-ratio'));
    await waitFor(() =>
      expect(batches(fetch)).toEqual([
        [
          { key: 'CacheReadRatio', value: '{"claude-x": 0.1}' },
          { key: 'CacheWriteRatio', value: '{"claude-x": 1.25}' },
        ],
      ]),
    );
  });

  it('shows an administrator only the options they may change, and a section with none not at all', async () => {
    localStorage.setItem('user', JSON.stringify({ ...ROOT, id: 2, username: 'admin', role: 10 }));
    renderScreen(<SystemSettings />, { path: '/setting' });
    await screen.findByTestId('system-settings');
    for (const hidden of [
      'section-server',
      'section-smtp',
      'section-github',
      'section-wechat',
      'section-turnstile',
    ])
      expect(screen.queryByTestId(hidden), hidden).toBeNull();
    expect(screen.queryByTestId('option-PasswordLoginEnabled')).toBeNull();
    expect(screen.getByTestId('option-RegisterEnabled')).toBeTruthy();
    expect(screen.getByTestId('section-whitelist')).toBeTruthy();
    cleanup();
    renderScreen(<OperationSettings />, { path: '/setting' });
    await screen.findByTestId('operation-settings');
    expect(screen.queryByTestId('option-ChatLink')).toBeNull();
    expect(screen.queryByTestId('option-TopUpLink')).toBeNull();
    expect(screen.getByTestId('option-QuotaPerUnit')).toBeTruthy();
    expect(screen.getByTestId('option-ModelRatio')).toBeTruthy();
  });
});
