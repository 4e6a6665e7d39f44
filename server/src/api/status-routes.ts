import type { Status } from '@sluice/contract/schemas/status';
import { Hono } from 'hono';
import { SLUICE_VERSION } from '../lib/version.js';
import { oidcConfigured } from '../services/oidc-service.js';
import type { OptionStore } from '../services/option-store.js';
import type { AppEnv } from '../http/app-env.js';
import { ok } from './respond.js';

/** The public status record (one-api §3.1; Sluice's defaults). */
export const statusOf = (options: OptionStore, startTime: number): Status => {
  const values = options.values;
  return {
    version: SLUICE_VERSION,
    start_time: startTime,
    email_verification: values.EmailVerificationEnabled,
    github_oauth: values.GitHubOAuthEnabled,
    github_client_id: values.GitHubClientId,
    lark_client_id: values.LarkClientId,
    system_name: values.SystemName,
    logo: values.Logo,
    footer_html: values.Footer,
    wechat_qrcode: values.WeChatAccountQRCodeImageURL,
    wechat_login: values.WeChatAuthEnabled,
    server_address: values.ServerAddress,
    turnstile_check: values.TurnstileCheckEnabled,
    turnstile_site_key: values.TurnstileSiteKey,
    top_up_link: values.TopUpLink,
    chat_link: values.ChatLink,
    quota_per_unit: values.QuotaPerUnit,
    display_in_currency: values.DisplayInCurrencyEnabled,
    oidc: oidcConfigured(values),
    oidc_client_id: values.OidcClientId,
    oidc_well_known: values.OidcWellKnown,
    pricing_public: values.PricingPublic,
  };
};

/** Public routes: status and the configured texts. */
export const statusRoutes = (options: OptionStore, startTime: number) => {
  const routes = new Hono<AppEnv>({ strict: false });
  routes.get('/status', (c) => ok(c, statusOf(options, startTime)));
  routes.get('/notice', (c) => ok(c, options.values.Notice));
  routes.get('/about', (c) => ok(c, options.values.About));
  routes.get('/home_page_content', (c) => ok(c, options.values.HomePageContent));
  return routes;
};
