// @vitest-environment happy-dom
import { cleanup, configure, render, screen, waitFor, within } from '@testing-library/react';
import type { QueryClient } from '@tanstack/react-query';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../i18n/i18n.js';
import { createErrorHandler, EXPIRED_LOGIN_PATH } from '../lib/error-handler.js';
import { createQueryClient } from '../lib/query-client.js';
import { signOut } from '../lib/session.js';
import { readStorage, writeStorage } from '../lib/storage.js';
import { Providers } from './providers.js';
import { ROUTES } from './router.js';
import { RouterErrorPage } from './status-screens.js';

// The screens are loaded lazily: on a loaded machine the first load of a chunk takes more than the
// default second.
configure({ asyncUtilTimeout: 5000 });

const renderAt = (path: string, routes = ROUTES, queryClient?: QueryClient) => {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  render(
    <Providers queryClient={queryClient ?? createQueryClient(() => undefined)}>
      <RouterProvider router={router} />
    </Providers>,
  );
  return router;
};

describe('the route table (spec §2)', () => {
  beforeEach(async () => {
    localStorage.clear();
    await i18n.changeLanguage('en');
    vi.stubGlobal(
      'fetch',
      vi.fn(() => Promise.resolve(new Response(JSON.stringify({ success: true, message: '', data: [] })))),
    );
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('sends a visitor without a stored user from a guarded route to /login, remembering the origin', async () => {
    const router = renderAt('/log?p=1');
    // The first screen of the file: its lazy chunk is transformed cold, which takes a loaded machine over 1 s.
    expect(await screen.findByTestId('login-page', {}, { timeout: 5000 })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/login');
    expect(router.state.location.state).toMatchObject({ from: { pathname: '/log', search: '?p=1' } });
  });

  it('shows the not-found screen for any other path', async () => {
    renderAt('/no/such/page');
    expect(await screen.findByText('The page does not exist')).toBeTruthy();
    expect(screen.getByText('Please check that the address in your browser is correct.')).toBeTruthy();
  });

  it('refuses admin routes to ordinary users and hides their menu items', async () => {
    writeStorage('user', { id: 2, username: 'alice', display_name: 'Alice', role: 1, status: 1 });
    renderAt('/channel');
    expect(await screen.findByTestId('forbidden')).toBeTruthy();
    const nav = within(screen.getByTestId('nav'));
    expect(nav.queryByText('Channels')).toBeNull();
    expect(nav.getByText('Tokens')).toBeTruthy();
    expect(screen.getByTestId('user-menu').textContent).toContain('alice');
  });

  it('lets admins open admin routes', async () => {
    writeStorage('user', { id: 1, username: 'root', display_name: 'Root', role: 100, status: 1 });
    renderAt('/channel');
    expect(await screen.findByTestId('channel-page')).toBeTruthy();
    expect(within(screen.getByTestId('nav')).getByText('Channels')).toBeTruthy();
  });

  it('after a 401 on a guarded page the browser ends at /login?expired=true, whichever navigation lands first', async () => {
    const alice = { id: 2, username: 'alice', display_name: 'Alice', role: 1, status: 1 };
    writeStorage('user', alice);
    vi.stubGlobal(
      'fetch',
      vi.fn(() =>
        Promise.resolve(
          new Response(JSON.stringify({ success: false, message: 'not logged in' }), { status: 401 }),
        ),
      ),
    );
    // The real handler, but its full navigation only recorded: the test decides when it lands.
    const redirects: string[] = [];
    let path = () => '/log';
    const report = createErrorHandler({
      showError: () => undefined,
      showInfo: () => undefined,
      translate: (key) => key,
      redirect: (url) => redirects.push(url),
      currentPath: () => path(),
      clearSession: signOut,
    });
    const first = renderAt('/log', ROUTES, createQueryClient(report));
    path = () => first.state.location.pathname;
    await waitFor(() => expect(redirects).toContain(EXPIRED_LOGIN_PATH));
    // Nothing forgot the user before the navigation lands, so no guard races it to a plain /login.
    expect(readStorage('user')).toEqual(alice);
    expect(await screen.findByTestId('log-page')).toBeTruthy();
    expect(first.state.location.pathname).toBe('/log');

    // Another navigation overtakes it (a new document at a guarded page): the user is still there,
    // the page loads, and its own 401 sends the browser to /login?expired=true again.
    cleanup();
    redirects.length = 0;
    const second = renderAt('/token', ROUTES, createQueryClient(report));
    path = () => second.state.location.pathname;
    await waitFor(() => expect(redirects).toContain(EXPIRED_LOGIN_PATH));
    expect(second.state.location.pathname).toBe('/token');

    // The navigation lands: the login page shows the notice and forgets the user.
    await second.navigate(EXPIRED_LOGIN_PATH);
    expect(await screen.findByTestId('login-expired')).toBeTruthy();
    expect(screen.getByText('Not logged in or login expired, please log in again.')).toBeTruthy();
    await waitFor(() => expect(readStorage('user')).toBeUndefined());
    expect(second.state.location.search).toBe('?expired=true');
  });

  it("shows the router's failure page when a screen cannot load", async () => {
    renderAt('/', [
      {
        path: '/',
        errorElement: <RouterErrorPage />,
        hydrateFallbackElement: <p />,
        lazy: () => Promise.reject(new Error('Loading chunk failed')),
      },
    ]);
    expect(await screen.findByText('Unexpected Application Error!')).toBeTruthy();
    expect(screen.getByText('Loading chunk failed')).toBeTruthy();
  });
});
