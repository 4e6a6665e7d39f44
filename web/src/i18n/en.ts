import type { Catalogue } from './catalogue.js';
import { enAccount } from './en/account.js';
import { enAlerts } from './en/alerts.js';
import { enChannel } from './en/channel.js';
import { enCore } from './en/core.js';
import { enLimits } from './en/limits.js';
import { enDashboard } from './en/dashboard.js';
import { enOptions } from './en/options.js';
import { enPlayground } from './en/playground.js';
import { enPricing } from './en/pricing.js';
import { enRatio } from './en/ratio.js';
import { enRedemption } from './en/redemption.js';
import { enSecurity } from './en/security.js';
import { enSite } from './en/site.js';
import { enServer } from './en/server.js';
import { enUsers } from './en/users.js';

/**
 * The English catalogue: the source of the keys. One file per area under en/ (and the same file under
 * zh/, typed against it, so a missing or extra key fails the type check). Spec texts (§5, §8) are
 * kept word for word where the spec gives them. A new area: add en/<area>.ts and zh/<area>.ts and
 * spread them here and in zh.ts.
 */
export const en = {
  ...enCore,
  ...enSite,
  ...enAccount,
  ...enChannel,
  ...enRedemption,
  ...enUsers,
  ...enOptions,
  ...enRatio,
  ...enDashboard,
  ...enServer,
  ...enSecurity,
  ...enPricing,
  ...enPlayground,
  ...enLimits,
  ...enAlerts,
};

/** The shape every other language must fill. */
export type Messages = Catalogue<typeof en>;
