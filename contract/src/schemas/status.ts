import { z } from 'zod';

/** The public status record of GET /api/status (console spec §3, one-api §3.1). */
export const statusSchema = z.object({
  version: z.string(),
  start_time: z.number(),
  email_verification: z.boolean(),
  github_oauth: z.boolean(),
  github_client_id: z.string(),
  lark_client_id: z.string(),
  system_name: z.string(),
  logo: z.string(),
  footer_html: z.string(),
  wechat_qrcode: z.string(),
  wechat_login: z.boolean(),
  server_address: z.string(),
  turnstile_check: z.boolean(),
  turnstile_site_key: z.string(),
  top_up_link: z.string(),
  chat_link: z.string(),
  quota_per_unit: z.number(),
  display_in_currency: z.boolean(),
  /** OpenID Connect sign-in is on and configured (one-api's field; absent from older servers). */
  oidc: z.boolean().default(false),
  oidc_client_id: z.string().default(''),
  oidc_well_known: z.string().default(''),
  /** Visitors who are not signed in may read the price list (PricingPublic; absent from older servers). */
  pricing_public: z.boolean().default(false),
});
export type Status = z.infer<typeof statusSchema>;
