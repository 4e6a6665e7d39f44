// @vitest-environment happy-dom
import { notifications } from '@mantine/notifications';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../i18n/i18n.js';
import { writeStorage } from '../../lib/storage.js';
import { renderScreen, stubApi } from '../../test-support/render.js';
import { UserListPage } from './user-list-page.js';

const user = (id: number, username: string, role: number, extra: Record<string, unknown> = {}) => ({
  id,
  username,
  password: '',
  display_name: username,
  role,
  status: 1,
  email: '',
  github_id: '',
  wechat_id: '',
  lark_id: '',
  oidc_id: '',
  verification_code: '',
  access_token: '',
  quota: 500000,
  used_quota: 0,
  request_count: 0,
  group: 'default',
  aff_code: '',
  inviter_id: 0,
  ...extra,
});

const USERS = [
  user(3, 'a-very-long-username-indeed', 1, { group: 'vip,svip' }),
  user(2, 'moderator', 10),
  user(1, 'root', 100),
];

const row = (username: string) => {
  const found = screen
    .getAllByTestId('user-row')
    .find((element) => element.getAttribute('data-username') === username);
  if (!found) throw new Error(`no row for ${username}`);
  return within(found);
};
const disabled = (element: HTMLElement) => (element as HTMLButtonElement).disabled;

describe('user management', () => {
  beforeEach(async () => {
    localStorage.clear();
    notifications.clean();
    await i18n.changeLanguage('en');
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('locks the root row, shows roles, statuses, badges and truncated names', async () => {
    writeStorage('user', { id: 1, username: 'root', display_name: 'Root', role: 100, status: 1 });
    stubApi({ '/api/user/': { success: true, data: USERS } });
    renderScreen(<UserListPage />, { path: '/user' });
    await screen.findByText('Manage users');
    await waitFor(() => expect(screen.getAllByTestId('user-row')).toHaveLength(3));
    for (const id of ['user-promote', 'user-demote', 'user-toggle', 'user-delete'])
      expect(disabled(row('root').getByTestId(id))).toBe(true);
    expect(row('root').getByText('Super admin')).toBeTruthy();
    expect(row('moderator').getByText('Admin')).toBeTruthy();
    expect(disabled(row('moderator').getByTestId('user-promote'))).toBe(true);
    expect(disabled(row('moderator').getByTestId('user-demote'))).toBe(false);
    const long = row('a-very-long-username-indeed');
    expect(long.getByText('a-very-long-use...')).toBeTruthy();
    expect(long.getByText('Ordinary user')).toBeTruthy();
    expect(long.getByText('vip')).toBeTruthy();
    expect(long.getByText('svip')).toBeTruthy();
    expect(disabled(long.getByTestId('user-promote'))).toBe(false);
  });

  it('applies the returned status and role, and hides a deleted row', async () => {
    writeStorage('user', { id: 1, username: 'root', display_name: 'Root', role: 100, status: 1 });
    const fetch = stubApi({
      '/api/user/manage': [
        { success: true, data: { role: 1, status: 2 } },
        { success: true, data: { role: 10, status: 2 } },
        { success: true, data: { role: 10, status: 3 } },
      ],
      '/api/user/': { success: true, data: USERS },
    });
    renderScreen(<UserListPage />, { path: '/user' });
    await waitFor(() => expect(screen.getAllByTestId('user-row')).toHaveLength(3));
    const name = 'a-very-long-username-indeed';
    fireEvent.click(row(name).getByTestId('user-toggle'));
    await waitFor(() => expect(row(name).getByTestId('user-status').textContent).toBe('Banned'));
    expect(row(name).getByTestId('user-toggle').textContent).toBe('Enable');
    fireEvent.click(row(name).getByTestId('user-promote'));
    await waitFor(() => expect(row(name).getByText('Admin')).toBeTruthy());
    fireEvent.click(row(name).getByTestId('user-delete'));
    fireEvent.click(await screen.findByTestId('confirm'));
    await waitFor(() => expect(screen.getAllByTestId('user-row')).toHaveLength(2));
    const bodies = fetch.mock.calls
      .map((call) => call as unknown as [string, RequestInit | undefined])
      .filter(([url]) => url === '/api/user/manage')
      .map(([, init]) => JSON.parse(typeof init?.body === 'string' ? init.body : '') as unknown);
    expect(bodies).toEqual([
      { username: name, action: 'disable' },
      { username: name, action: 'promote' },
      { username: name, action: 'delete' },
    ]);
  });

  it('sorts through ?order=', async () => {
    writeStorage('user', { id: 1, username: 'root', display_name: 'Root', role: 100, status: 1 });
    const fetch = stubApi({ '/api/user/': { success: true, data: USERS } });
    renderScreen(<UserListPage />, { path: '/user' });
    await waitFor(() => expect(screen.getAllByTestId('user-row')).toHaveLength(3));
    fireEvent.click(screen.getByTestId('user-order'));
    fireEvent.click(await screen.findByRole('option', { name: 'Used quota', hidden: true }));
    await waitFor(() =>
      expect(fetch.mock.calls.map(([url]) => url)).toContain('/api/user/?p=0&order=used_quota&size=10'),
    );
  });
});
