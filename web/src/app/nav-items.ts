import {
  IconBell,
  IconChartBar,
  IconHome,
  IconInfoCircle,
  IconKey,
  IconList,
  IconMessageChatbot,
  IconMessages,
  IconNetwork,
  IconReceiptDollar,
  IconSettings,
  IconShieldCheck,
  IconTicket,
  IconUsers,
  IconWallet,
  type Icon,
} from '@tabler/icons-react';

/** Translation keys of the navigation items (nav.<key>). */
export type NavKey =
  | 'home'
  | 'chat'
  | 'dashboard'
  | 'channel'
  | 'token'
  | 'redemption'
  | 'topup'
  | 'pricing'
  | 'playground'
  | 'user'
  | 'log'
  | 'audit'
  | 'alerts'
  | 'setting'
  | 'about';

export interface NavItem {
  readonly key: NavKey;
  readonly path: string;
  readonly icon: Icon;
  /** Shown to admins only (spec §2, §6). */
  readonly adminOnly?: boolean;
  /** Shown only when a chat link is configured (spec §2: inserted after Home). */
  readonly needsChatLink?: boolean;
  /** Shown to signed-in users, and to visitors only when the price list is public (PricingPublic). */
  readonly needsPricingAccess?: boolean;
  /** Shown to signed-in users only. */
  readonly needsSignIn?: boolean;
  /** Other paths that belong to this item, and paths under it that do not. */
  readonly alsoActiveOn?: readonly string[];
  readonly notActiveOn?: readonly string[];
}

/** The navigation bar of spec §2, in order; Dashboard is the console's addition. */
export const NAV_ITEMS: readonly NavItem[] = [
  { key: 'home', path: '/', icon: IconHome },
  { key: 'chat', path: '/chat', icon: IconMessageChatbot, needsChatLink: true },
  { key: 'dashboard', path: '/dashboard', icon: IconChartBar },
  { key: 'channel', path: '/channel', icon: IconNetwork, adminOnly: true },
  { key: 'token', path: '/token', icon: IconKey },
  { key: 'redemption', path: '/redemption', icon: IconTicket, adminOnly: true },
  { key: 'topup', path: '/topup', icon: IconWallet },
  { key: 'pricing', path: '/pricing', icon: IconReceiptDollar, needsPricingAccess: true },
  { key: 'playground', path: '/playground', icon: IconMessages, needsSignIn: true },
  {
    key: 'user',
    path: '/user',
    icon: IconUsers,
    adminOnly: true,
    notActiveOn: ['/user/edit', '/user/reset'],
  },
  { key: 'log', path: '/log', icon: IconList },
  { key: 'audit', path: '/audit', icon: IconShieldCheck, adminOnly: true },
  { key: 'alerts', path: '/alerts', icon: IconBell, adminOnly: true },
  { key: 'setting', path: '/setting', icon: IconSettings, alsoActiveOn: ['/user/edit'] },
  { key: 'about', path: '/about', icon: IconInfoCircle },
];

export interface NavContext {
  readonly isAdmin: boolean;
  readonly chatLink: string;
  /** A user is signed in (absent: yes, as the items other than Pricing show to visitors too). */
  readonly signedIn?: boolean;
  /** The status record's pricing_public. */
  readonly pricingPublic?: boolean;
}

/** The items this visitor sees. */
export const visibleNavItems = (options: NavContext): NavItem[] =>
  NAV_ITEMS.filter(
    (item) =>
      (!item.adminOnly || options.isAdmin) &&
      (!item.needsChatLink || options.chatLink !== '') &&
      (!item.needsPricingAccess || options.signedIn !== false || options.pricingPublic === true) &&
      (!item.needsSignIn || options.signedIn !== false),
  );

/** True when `pathname` belongs to the item (its path or below it; Home only exactly; /user/edit is Settings). */
export const isActiveItem = (item: NavItem, pathname: string): boolean => {
  if (item.alsoActiveOn?.includes(pathname)) return true;
  if (item.notActiveOn?.includes(pathname)) return false;
  return item.path === '/'
    ? pathname === '/'
    : pathname === item.path || pathname.startsWith(`${item.path}/`);
};
