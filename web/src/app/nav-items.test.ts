// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { isActiveItem, NAV_ITEMS, visibleNavItems } from './nav-items.js';

const keys = (options: { isAdmin: boolean; chatLink: string }) =>
  visibleNavItems(options).map((item) => item.key);

describe('navigation items (spec §2)', () => {
  it('hides admin items from ordinary users and the chat item without a chat link', () => {
    expect(keys({ isAdmin: false, chatLink: '' })).toEqual([
      'home',
      'dashboard',
      'token',
      'topup',
      'pricing',
      'playground',
      'log',
      'setting',
      'about',
    ]);
  });

  it('shows Pricing to a visitor only when the price list is public', () => {
    const visitor = (pricingPublic: boolean) =>
      visibleNavItems({ isAdmin: false, chatLink: '', signedIn: false, pricingPublic }).map(
        (item) => item.key,
      );
    expect(visitor(false)).not.toContain('pricing');
    expect(visitor(true)).toContain('pricing');
    expect(keys({ isAdmin: false, chatLink: '' })).toContain('pricing');
  });

  it('shows the Playground to signed-in users only', () => {
    expect(
      visibleNavItems({ isAdmin: false, chatLink: '', signedIn: false }).map((item) => item.key),
    ).not.toContain('playground');
    expect(
      visibleNavItems({ isAdmin: false, chatLink: '', signedIn: true }).map((item) => item.key),
    ).toContain('playground');
  });

  it('shows channel, redemption and user to admins, and Chat right after Home with a chat link', () => {
    expect(keys({ isAdmin: true, chatLink: 'https://chat.example.com' })).toEqual([
      'home',
      'chat',
      'dashboard',
      'channel',
      'token',
      'redemption',
      'topup',
      'pricing',
      'playground',
      'user',
      'log',
      'audit',
      'alerts',
      'setting',
      'about',
    ]);
  });

  it('marks the item of the current path', () => {
    const [home, token] = [
      NAV_ITEMS.find((item) => item.key === 'home')!,
      NAV_ITEMS.find((item) => item.key === 'token')!,
    ];
    expect(isActiveItem(home, '/')).toBe(true);
    expect(isActiveItem(home, '/token')).toBe(false);
    expect(isActiveItem(token, '/token/edit/3')).toBe(true);
    expect(isActiveItem(token, '/tokens')).toBe(false);
    const [user, setting] = [
      NAV_ITEMS.find((item) => item.key === 'user')!,
      NAV_ITEMS.find((item) => item.key === 'setting')!,
    ];
    expect(isActiveItem(user, '/user/edit/4')).toBe(true);
    expect(isActiveItem(user, '/user/edit')).toBe(false);
    expect(isActiveItem(setting, '/user/edit')).toBe(true);
  });
});
