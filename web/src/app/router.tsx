import { createBrowserRouter, type RouteObject } from 'react-router';
import { RequireAdmin, RequireUser } from './guards.js';
import { Layout } from './layout.js';
import { lazyPage } from './lazy-page.js';
import { NotFoundScreen, PageLoader, RouterErrorPage } from './status-screens.js';

/**
 * The route table of spec §2. Every screen is a lazy chunk (with the 120 s chunk timeout); guards
 * are layout routes: `RequireUser` (logged in) and `RequireAdmin` (logged in and admin). To add a
 * screen: add its row here under the right guard, and its file in its feature folder.
 */
const publicRoutes: RouteObject[] = [
  { index: true, lazy: lazyPage(() => import('../features/site/home-page.js'), 'HomePage') },
  { path: 'login', lazy: lazyPage(() => import('../features/auth/login-page.js'), 'LoginPage') },
  { path: 'register', lazy: lazyPage(() => import('../features/auth/register-page.js'), 'RegisterPage') },
  {
    path: 'reset',
    lazy: lazyPage(() => import('../features/auth/reset-request-page.js'), 'ResetRequestPage'),
  },
  {
    path: 'user/reset',
    lazy: lazyPage(() => import('../features/auth/reset-confirm-page.js'), 'ResetConfirmPage'),
  },
  {
    path: 'oauth/github',
    lazy: lazyPage(() => import('../features/auth/oauth-callback-page.js'), 'GitHubCallbackPage'),
  },
  {
    path: 'oauth/lark',
    lazy: lazyPage(() => import('../features/auth/oauth-callback-page.js'), 'LarkCallbackPage'),
  },
  {
    path: 'oauth/oidc',
    lazy: lazyPage(() => import('../features/auth/oauth-callback-page.js'), 'OidcCallbackPage'),
  },
  { path: 'about', lazy: lazyPage(() => import('../features/site/about-page.js'), 'AboutPage') },
  { path: 'chat', lazy: lazyPage(() => import('../features/site/chat-page.js'), 'ChatPage') },
  // Signed-in users, and visitors when PricingPublic is on: the page sends other visitors to /login.
  { path: 'pricing', lazy: lazyPage(() => import('../features/pricing/pricing-page.js'), 'PricingPage') },
];

const userRoutes: RouteObject[] = [
  { path: 'token', lazy: lazyPage(() => import('../features/token/token-list-page.js'), 'TokenListPage') },
  {
    path: 'token/add',
    lazy: lazyPage(() => import('../features/token/token-form-page.js'), 'TokenFormPage'),
  },
  {
    path: 'token/edit/:id',
    lazy: lazyPage(() => import('../features/token/token-form-page.js'), 'TokenFormPage'),
  },
  { path: 'user/edit', lazy: lazyPage(() => import('../features/user/user-edit-page.js'), 'UserEditPage') },
  { path: 'setting', lazy: lazyPage(() => import('../features/setting/setting-page.js'), 'SettingPage') },
  { path: 'topup', lazy: lazyPage(() => import('../features/topup/topup-page.js'), 'TopUpPage') },
  { path: 'log', lazy: lazyPage(() => import('../features/log/log-page.js'), 'LogPage') },
  {
    path: 'dashboard',
    lazy: lazyPage(() => import('../features/dashboard/dashboard-page.js'), 'DashboardPage'),
  },
  {
    path: 'playground',
    lazy: lazyPage(() => import('../features/playground/playground-page.js'), 'PlaygroundPage'),
  },
];

const adminRoutes: RouteObject[] = [
  {
    path: 'channel',
    lazy: lazyPage(() => import('../features/channel/channel-list-page.js'), 'ChannelListPage'),
  },
  {
    path: 'channel/add',
    lazy: lazyPage(() => import('../features/channel/channel-form-page.js'), 'ChannelFormPage'),
  },
  {
    path: 'channel/edit/:id',
    lazy: lazyPage(() => import('../features/channel/channel-form-page.js'), 'ChannelFormPage'),
  },
  {
    path: 'redemption',
    lazy: lazyPage(() => import('../features/redemption/redemption-list-page.js'), 'RedemptionListPage'),
  },
  {
    path: 'redemption/add',
    lazy: lazyPage(() => import('../features/redemption/redemption-form-page.js'), 'RedemptionFormPage'),
  },
  {
    path: 'redemption/edit/:id',
    lazy: lazyPage(() => import('../features/redemption/redemption-form-page.js'), 'RedemptionFormPage'),
  },
  { path: 'user', lazy: lazyPage(() => import('../features/user/user-list-page.js'), 'UserListPage') },
  { path: 'user/add', lazy: lazyPage(() => import('../features/user/user-add-page.js'), 'UserAddPage') },
  {
    path: 'user/edit/:id',
    lazy: lazyPage(() => import('../features/user/user-edit-page.js'), 'UserEditPage'),
  },
  { path: 'audit', lazy: lazyPage(() => import('../features/audit/audit-page.js'), 'AuditPage') },
  { path: 'alerts', lazy: lazyPage(() => import('../features/alerts/alerts-page.js'), 'AlertsPage') },
];

export const ROUTES: RouteObject[] = [
  {
    path: '/',
    element: <Layout />,
    errorElement: <RouterErrorPage />,
    hydrateFallbackElement: <PageLoader />,
    children: [
      {
        // Screen failures (a chunk that does not load, a render error) show inside the layout.
        errorElement: <RouterErrorPage />,
        children: [
          ...publicRoutes,
          { element: <RequireUser />, children: userRoutes },
          { element: <RequireAdmin />, children: adminRoutes },
          { path: '*', element: <NotFoundScreen /> },
        ],
      },
    ],
  },
];

export const createAppRouter = () => createBrowserRouter(ROUTES);
