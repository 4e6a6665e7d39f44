// @vitest-environment happy-dom
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../i18n/i18n.js';
import { readStorage, writeStorage } from '../../lib/storage.js';
import { renderScreen, stubApi } from '../../test-support/render.js';
import { LoginPage } from './login-page.js';
import { GitHubCallbackPage, OAUTH_RETRY_STEP_MS } from './oauth-callback-page.js';

const status = {
  version: 'v1',
  start_time: 1,
  email_verification: false,
  github_oauth: true,
  github_client_id: 'gh-client',
  lark_client_id: 'lark-app',
  system_name: 'Sluice',
  logo: '',
  footer_html: '',
  wechat_qrcode: '/qr.png',
  wechat_login: true,
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
const alice = { id: 7, username: 'alice', display_name: 'Alice', role: 1, status: 1 };

describe('third-party login', () => {
  beforeEach(async () => {
    localStorage.clear();
    await i18n.changeLanguage('en');
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it('shows the round buttons the status record enables; GitHub opens the authorization page with a fresh state', async () => {
    writeStorage('status', status);
    stubApi({ '/api/oauth/state': { success: true, data: 'st4te' } });
    const open = vi.fn();
    vi.stubGlobal('open', open);
    renderScreen(<LoginPage />, { path: '/login' });
    expect(screen.getByTestId('oauth-wechat')).toBeTruthy();
    expect(screen.getByTestId('oauth-lark')).toBeTruthy();
    fireEvent.click(screen.getByTestId('oauth-github'));
    await waitFor(() =>
      expect(open).toHaveBeenCalledWith(
        'https://github.com/login/oauth/authorize?client_id=gh-client&state=st4te&scope=user:email',
        '_self',
      ),
    );
  });

  it('hides the buttons when nothing is enabled', () => {
    writeStorage('status', { ...status, github_oauth: false, wechat_login: false, lark_client_id: '' });
    renderScreen(<LoginPage />, { path: '/login' });
    expect(screen.queryByTestId('oauth-github')).toBeNull();
    expect(screen.queryByTestId('oauth-wechat')).toBeNull();
  });

  it('logs in through the callback after an unanswered call, waiting 2 s times the attempt number', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const fetch = stubApi({
      '/api/oauth/github': [
        { status: 502, body: 'Bad Gateway' },
        { success: true, message: '', data: alice },
      ],
    });
    const { router } = renderScreen(<GitHubCallbackPage />, {
      path: '/oauth/github',
      at: '/oauth/github?code=c0de&state=st4te',
    });
    await waitFor(() => expect(fetch).toHaveBeenCalledTimes(1));
    expect(fetch.mock.calls[0]?.[0]).toBe('/api/oauth/github?code=c0de&state=st4te');
    await screen.findByText('An error occurred, retrying (attempt 1)…');
    await vi.advanceTimersByTimeAsync(OAUTH_RETRY_STEP_MS);
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(readStorage('user')).toEqual(alice);
  });

  it('leaves for /setting at once when the server refuses the code', async () => {
    const fetch = stubApi({
      '/api/oauth/github': [
        { success: false, message: 'the code has expired' },
        { success: true, message: '', data: alice },
      ],
    });
    const { router } = renderScreen(<GitHubCallbackPage />, {
      path: '/oauth/github',
      at: '/oauth/github?code=c0de&state=st4te',
    });
    await waitFor(() => expect(router.state.location.pathname).toBe('/setting'));
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(readStorage('user')).toBeUndefined();
  });

  it("goes to /setting when the answer is 'bind'", async () => {
    stubApi({ '/api/oauth/github': { success: true, message: 'bind' } });
    const { router } = renderScreen(<GitHubCallbackPage />, {
      path: '/oauth/github',
      at: '/oauth/github?code=c&state=s',
    });
    await waitFor(() => expect(router.state.location.pathname).toBe('/setting'));
    expect(readStorage('user')).toBeUndefined();
  });
});
