import type { Messages } from './en.js';
import { zhAccount } from './zh/account.js';
import { zhAlerts } from './zh/alerts.js';
import { zhChannel } from './zh/channel.js';
import { zhCore } from './zh/core.js';
import { zhLimits } from './zh/limits.js';
import { zhDashboard } from './zh/dashboard.js';
import { zhOptions } from './zh/options.js';
import { zhPlayground } from './zh/playground.js';
import { zhPricing } from './zh/pricing.js';
import { zhRatio } from './zh/ratio.js';
import { zhRedemption } from './zh/redemption.js';
import { zhSecurity } from './zh/security.js';
import { zhSite } from './zh/site.js';
import { zhServer } from './zh/server.js';
import { zhUsers } from './zh/users.js';

/** The Chinese catalogue (same keys as en.ts, area by area). */
export const zh: Messages = {
  ...zhCore,
  ...zhSite,
  ...zhAccount,
  ...zhChannel,
  ...zhRedemption,
  ...zhUsers,
  ...zhOptions,
  ...zhRatio,
  ...zhDashboard,
  ...zhServer,
  ...zhSecurity,
  ...zhPricing,
  ...zhPlayground,
  ...zhLimits,
  ...zhAlerts,
};
