// @vitest-environment happy-dom
import { notifications } from '@mantine/notifications';
import type { AuditRow } from '@sluice/contract/schemas/audit';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../i18n/i18n.js';
import { writeStorage } from '../../lib/storage.js';
import { renderScreen, stubApi } from '../../test-support/render.js';
import { AuditPage } from './audit-page.js';

const row = (id: number, overrides: Partial<AuditRow> = {}): AuditRow => ({
  id,
  created_at: 1_700_000_000 + id,
  user_id: 1,
  username: 'root',
  role: 100,
  ip: '10.0.0.7',
  action: 'update',
  object_type: 'channel',
  object_id: '4',
  before: '{"name":"old","key":"[masked]"}',
  after: '{"name":"new","key":"[masked, changed]"}',
  detail: '',
  ...overrides,
});

const ROWS = [
  row(2),
  row(1, {
    action: 'sign_in_failed',
    object_type: 'session',
    object_id: '',
    before: null,
    after: null,
    detail: 'password: wrong',
  }),
];

const urls = (fetch: ReturnType<typeof stubApi>) =>
  fetch.mock.calls.map((call) => (call as unknown as [string])[0]);

describe('the audit screen', () => {
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

  it('lists the rows with their object and action, and shows a change before and after', async () => {
    stubApi({ '/api/audit/': { success: true, data: ROWS, total: 2 } as never });
    renderScreen(<AuditPage />, { path: '/audit' });
    await waitFor(() => expect(screen.getAllByTestId('audit-row')).toHaveLength(2));
    const [change, refused] = screen.getAllByTestId('audit-row');
    expect(within(change!).getByText('Channel 4')).toBeTruthy();
    expect(within(change!).getByTestId('audit-action-badge').textContent).toBe('Changed');
    expect(within(refused!).getByTestId('audit-action-badge').textContent).toBe('Sign-in refused');
    expect(within(refused!).getByText('password: wrong')).toBeTruthy();
    expect(screen.getByTestId('pager-total').textContent).toBe('2 in all');
    fireEvent.click(within(change!).getByTestId('audit-show'));
    const before = await screen.findByTestId('audit-before');
    expect(JSON.parse(before.textContent ?? '')).toEqual({ name: 'old', key: '[masked]' });
    expect(JSON.parse(screen.getByTestId('audit-after').textContent ?? '')).toEqual({
      name: 'new',
      key: '[masked, changed]',
    });
  });

  it('sends the filters to the list and to the CSV export', async () => {
    const fetch = stubApi({ '/api/audit/': { success: true, data: ROWS, total: 2 } as never });
    renderScreen(<AuditPage />, { path: '/audit' });
    await waitFor(() => expect(screen.getAllByTestId('audit-row')).toHaveLength(2));
    fireEvent.change(screen.getByTestId('audit-username'), { target: { value: ' alice ' } });
    fireEvent.click(screen.getByTestId('audit-object'));
    fireEvent.click(await screen.findByRole('option', { name: 'Setting', hidden: true }));
    fireEvent.click(screen.getByTestId('audit-search'));
    await waitFor(() =>
      expect(
        urls(fetch).some((url) => url.includes('username=alice') && url.includes('object_type=option')),
      ).toBe(true),
    );
    fireEvent.click(screen.getByTestId('audit-export'));
    await waitFor(() =>
      expect(
        urls(fetch).some((url) => url.startsWith('/api/audit/export?') && url.includes('object_type=option')),
      ).toBe(true),
    );
  });

  it('speaks Chinese', async () => {
    await i18n.changeLanguage('zh');
    stubApi({ '/api/audit/': { success: true, data: ROWS, total: 2 } as never });
    renderScreen(<AuditPage />, { path: '/audit' });
    await waitFor(() => expect(screen.getAllByTestId('audit-row')).toHaveLength(2));
    expect(screen.getByText('审计日志')).toBeTruthy();
    expect(screen.getAllByTestId('audit-action-badge').map((badge) => badge.textContent)).toEqual([
      '修改',
      '登录失败',
    ]);
  });
});
