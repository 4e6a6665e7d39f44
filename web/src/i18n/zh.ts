import type { Messages } from './en.js';
import { zhAccount } from './zh/account.js';
import { zhCore } from './zh/core.js';
import { zhSite } from './zh/site.js';

/** The Chinese catalogue (same keys as en.ts, area by area). */
export const zh: Messages = { ...zhCore, ...zhSite, ...zhAccount };
