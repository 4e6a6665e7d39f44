import { createAccountMailService } from './account-mail-service.js';
import { createAlertService } from './alert-service.js';
import { createAuditService } from './audit-service.js';
import { createChangeFeed } from './change-feed.js';
import { createChannelService } from './channel-service.js';
import { createCodeStore } from './code-store.js';
import { createHumanCheck } from './human-check.js';
import { createRollupJob } from './log-rollup-job.js';
import { createLogService } from './log-service.js';
import { createMailer } from './mailer.js';
import { createOAuthService } from './oauth-service.js';
import { createOidcService } from './oidc-service.js';
import { createPasskeyService } from './passkey-service.js';
import { createPricingService } from './pricing-service.js';
import type { ServiceDeps } from './service-deps.js';
import { createSessionStore } from './session-store.js';
import { createQuotaService } from './quota-service.js';
import { createRedemptionService } from './redemption-service.js';
import { createTokenService } from './token-service.js';
import { createTwoFactorService } from './two-factor-service.js';
import { createUsageService } from './usage-service.js';
import { createUserAdminService } from './user-admin-service.js';
import { createUserService } from './user-service.js';

/** Every service, built once from the shared dependencies. */
export const createServices = (deps: ServiceDeps) => {
  const sessions = createSessionStore(deps.db);
  const codes = createCodeStore(deps.db, deps.dialect);
  const changes = createChangeFeed(deps.cache, deps.logger);
  const users = createUserService(deps, codes, sessions, changes);
  const userAdmin = createUserAdminService(deps, sessions, changes);
  const tokens = createTokenService(deps, changes);
  const channels = createChannelService(deps, changes);
  const redemptions = createRedemptionService(deps, changes);
  const logs = createLogService(deps);
  const usage = createUsageService(deps);
  const rollups = createRollupJob({
    // Its look-ahead is two small indexed reads a chunk, in the maintenance thread's turn: so on
    // SQLite the read thread (a V8 isolate of ~10 MiB) starts only with the console's first read.
    readDb: deps.logMaintenanceDb,
    writeDb: deps.logMaintenanceDb,
    dialect: deps.logDialect,
  });
  const quota = createQuotaService({ db: deps.db, logDb: deps.logDb, options: deps.options, changes });
  const mailer = createMailer(deps.options);
  const accountMail = createAccountMailService(deps, codes, mailer, changes);
  const oauth = createOAuthService(deps, codes, changes);
  const humanCheck = createHumanCheck(deps);
  const audit = createAuditService(deps);
  const twoFactor = createTwoFactorService(deps);
  const oidc = createOidcService(deps, changes);
  const passkeys = createPasskeyService(deps);
  const pricing = createPricingService(deps);
  const alerts = createAlertService(deps);
  return {
    deps,
    options: deps.options,
    sessions,
    codes,
    changes,
    users,
    userAdmin,
    tokens,
    channels,
    redemptions,
    quota,
    logs,
    usage,
    rollups,
    mailer,
    accountMail,
    oauth,
    humanCheck,
    audit,
    twoFactor,
    oidc,
    passkeys,
    pricing,
    alerts,
  };
};

export type Services = ReturnType<typeof createServices>;
