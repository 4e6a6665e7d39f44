// @vitest-environment happy-dom
import { notifications, notificationsStore } from '@mantine/notifications';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../i18n/i18n.js';
import { readStorage, writeStorage } from '../../lib/storage.js';
import { renderScreen, stubApi } from '../../test-support/render.js';
import { RegisterPage } from './register-page.js';

const status = {
  version: 'v1',
  start_time: 1,
  email_verification: true,
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

const toasts = () =>
  notificationsStore
    .getState()
    .notifications.map((toast) => (typeof toast.message === 'string' ? toast.message : ''));
const type = (name: string, value: string) =>
  fireEvent.change(document.querySelector(`input[name="${name}"]`)!, { target: { value } });

describe('registration with email verification', () => {
  beforeEach(async () => {
    localStorage.clear();
    notifications.clean();
    await i18n.changeLanguage('en');
    writeStorage('status', status);
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('sends the code once an email is typed, then counts 30 s down', async () => {
    const fetch = stubApi({ '/api/verification': { success: true } });
    renderScreen(<RegisterPage />, { path: '/register' });
    fireEvent.click(screen.getByText('Get code'));
    expect(fetch).not.toHaveBeenCalled();
    type('email', 'alice@example.com');
    fireEvent.click(screen.getByText('Get code'));
    await screen.findByText('Resend (30 s)');
    expect(fetch.mock.calls[0]?.[0]).toBe('/api/verification?email=alice%40example.com&turnstile=');
    await waitFor(() => expect(toasts()).toContain('Verification code sent, please check your mailbox!'));
  });

  it('remembers the invite code and sends the registration payload', async () => {
    const fetch = stubApi({ '/api/user/register': { success: true } });
    const { router } = renderScreen(<RegisterPage />, { path: '/register', at: '/register?aff=Q7x9' });
    await waitFor(() => expect(readStorage('aff')).toBe('Q7x9'));
    type('username', 'alice');
    type('password', 'password1');
    type('password2', 'password2');
    fireEvent.click(screen.getByTestId('register-submit'));
    await waitFor(() => expect(toasts()).toContain('The two passwords entered do not match!'));
    type('password2', 'password1');
    fireEvent.click(screen.getByTestId('register-submit'));
    await waitFor(() =>
      expect(toasts()).toContain('Please enter the email address and the verification code.'),
    );
    type('email', 'alice@example.com');
    type('verification_code', '123abc');
    fireEvent.click(screen.getByTestId('register-submit'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/user/register?turnstile=');
    expect(JSON.parse(typeof init.body === 'string' ? init.body : '')).toEqual({
      username: 'alice',
      password: 'password1',
      password2: 'password1',
      email: 'alice@example.com',
      verification_code: '123abc',
      aff_code: 'Q7x9',
    });
  });
});
