import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from './config/env.js';
import type { Dialect } from './db/dsn.js';
import type { Tables } from './db/tables.js';
import { createBudgetWarning } from './services/budget-warning.js';
import { createKeyQuotaAlerts } from './services/key-quota-alerts.js';
import type { OptionStore } from './services/option-store.js';
import { createQuotaReminder } from './services/quota-reminder.js';
import { createRootNotifier } from './services/root-notifier.js';
import type { Services } from './services/services.js';

export interface NoticeDeps {
  readonly config: Config;
  readonly db: Kysely<Tables>;
  readonly dialect: Dialect;
  readonly services: Services;
  readonly options: OptionStore;
  readonly track: (work: Promise<unknown>) => void;
  readonly logger: Logger;
}

/**
 * Who is told what the relay sees: root (its message), users whose quota runs low, budgets
 * crossed, keys near their quota; each through the mailer and the alert webhooks.
 */
export const createNotices = (deps: NoticeDeps) => {
  const { config, db, dialect, services, options, track, logger } = deps;
  const { mailer, alerts, changes } = services;
  return {
    rootNotifier: createRootNotifier({ db, options, mailer, logger, track }),
    quotaReminder: createQuotaReminder({
      db,
      dialect,
      options,
      config,
      changes,
      mailer,
      logger,
      track,
      raise: alerts.raise,
    }),
    budgetWarning: createBudgetWarning({ db, dialect, options, mailer, logger, track, raise: alerts.raise }),
    keyQuotaAlerts: createKeyQuotaAlerts({ db, options, mailer, raise: alerts.raise, track }),
  };
};
