// @vitest-environment happy-dom
import { notifications, notificationsStore } from '@mantine/notifications';
import type { Redemption } from '@sluice/contract/schemas/redemption';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../i18n/i18n.js';
import { renderScreen, stubApi } from '../../test-support/render.js';
import { RedemptionFormPage } from './redemption-form-page.js';
import { RedemptionListPage } from './redemption-list-page.js';

const toasts = () => {
  const state = notificationsStore.getState();
  return [...state.notifications, ...state.queue].map((toast) =>
    typeof toast.message === 'string' ? toast.message : '',
  );
};
const type = (name: string, value: string) =>
  fireEvent.change(document.querySelector(`input[name="${name}"]`)!, { target: { value } });
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
const code = (change: Partial<Redemption>): Redemption => ({
  id: 1,
  user_id: 1,
  key: '0123456789abcdef0123456789abcdef',
  status: 1,
  name: 'promo',
  quota: 100_000,
  created_time: 1_700_000_000,
  redeemed_time: 0,
  ...change,
});

describe('redemption screens', () => {
  beforeEach(async () => {
    localStorage.clear();
    notifications.clean();
    await i18n.changeLanguage('en');
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('creates codes and downloads them as <name>.txt, one per line', async () => {
    const fetch = stubApi({ '/api/redemption/': { success: true, data: ['aaa', 'bbb', 'ccc'] } });
    const blobs: Blob[] = [];
    vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
      if (blob instanceof Blob) blobs.push(blob);
      return 'blob:codes';
    });
    const names: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      names.push(this.download);
    });
    const { router } = renderScreen(<RedemptionFormPage />, { path: '/redemption/add' });
    await screen.findByTestId('redemption-form');
    fireEvent.click(screen.getByTestId('redemption-submit'));
    await waitFor(() => expect(toasts()).toContain('Please enter a name!'));
    type('name', 'spring promo');
    type('count', '3');
    fireEvent.click(screen.getByTestId('redemption-submit'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/redemption'));
    expect(requests(fetch)[0]?.body).toEqual({ name: 'spring promo', quota: 100_000, count: 3 });
    expect(names).toEqual(['spring promo.txt']);
    expect(await blobs[0]?.text()).toBe('aaa\nbbb\nccc\n');
    expect(toasts()).toContain('Redemption codes created!');
  });

  it('edits a code without a count', async () => {
    const fetch = stubApi({
      '/api/redemption/4': { success: true, data: code({ id: 4, name: 'gift', quota: 500 }) },
      '/api/redemption/': { success: true, data: code({ id: 4 }) },
    });
    renderScreen(<RedemptionFormPage />, { path: '/redemption/edit/:id', at: '/redemption/edit/4' });
    await waitFor(() =>
      expect(document.querySelector<HTMLInputElement>('input[name="name"]')?.value).toBe('gift'),
    );
    expect(document.querySelector('input[name="count"]')).toBeNull();
    fireEvent.click(screen.getByTestId('redemption-submit'));
    await waitFor(() => expect(toasts()).toContain('Redemption code updated!'));
    expect(requests(fetch).find((request) => request.method === 'PUT')?.body).toEqual({
      id: 4,
      name: 'gift',
      quota: 500,
    });
  });

  it('lists codes with their status; a used code cannot be toggled', async () => {
    const fetch = stubApi({
      '/api/redemption/?p=0': {
        success: true,
        data: [code({ id: 2 }), code({ id: 3, status: 3, redeemed_time: 1_700_000_100 })],
      },
      '/api/redemption/?status_only=true': { success: true, data: code({ id: 2, status: 2 }) },
    });
    renderScreen(<RedemptionListPage />, { path: '/redemption' });
    await screen.findAllByTestId('redemption-row');
    expect(screen.getAllByTestId('redemption-status').map((badge) => badge.textContent)).toEqual([
      'Unused',
      'Used',
    ]);
    const [unused, used] = screen.getAllByTestId('redemption-toggle');
    expect(used).toHaveProperty('disabled', true);
    fireEvent.click(unused!);
    await waitFor(() => expect(toasts()).toContain('Operation completed successfully!'));
    const put = requests(fetch).find((request) => request.url === '/api/redemption/?status_only=true');
    expect(put?.body).toEqual({ id: 2, status: 2 });
  });
});
