import type { Logger } from 'pino';
import type { Config } from './config/env.js';
import { isDatabaseUnavailable } from './db/database-unavailable.js';
import type { OptionStore } from './services/option-store.js';
import type { Services } from './services/services.js';

export interface TimerDeps {
  readonly config: Config;
  readonly services: Services;
  readonly options: Pick<OptionStore, 'reload'>;
  /** The relay's in-memory index of keys, users and channels: checked against the database. */
  readonly revalidateIndex: () => Promise<void>;
  /** Starts a test of every channel (CHANNEL_TEST_FREQUENCY). */
  readonly testChannels: () => void;
  /** Settles the reservations and journals of instances that died (billing-recovery.ts). */
  readonly recoverBilling: () => Promise<unknown>;
  readonly logger: Logger;
}

/** Starts an instance's periodic work; each timer is unref'd. Answers the timers (to clear on close). */
export const startBackgroundTimers = (deps: TimerDeps): NodeJS.Timeout[] => {
  const { config, services, options, logger } = deps;
  const timers: NodeJS.Timeout[] = [];
  const every = (seconds: number, work: () => Promise<unknown>) => {
    const timer = setInterval(() => {
      work().catch((error: unknown) => logger.error({ err: error }, 'background work failed'));
    }, seconds * 1000);
    timer.unref();
    timers.push(timer);
  };
  // As one-api's SYNC_FREQUENCY: options, and everything the relay keeps in memory, read again.
  if (config.syncFrequencySeconds > 0)
    every(config.syncFrequencySeconds, async () => {
      services.changes.resync();
      await options.reload();
    });
  // Changes made in the database behind Sluice's back reach the relay within a few seconds.
  if (config.statusCheckSeconds > 0)
    every(config.statusCheckSeconds, async () => {
      try {
        await deps.revalidateIndex();
      } catch (error) {
        // A database that is away is said by the requests that need it, not every few seconds here.
        if (!isDatabaseUnavailable(error)) throw error;
      }
    });
  // As one-api's CHANNEL_TEST_FREQUENCY, but on the master only: one run serves every instance.
  if (config.channelTestFrequencyMinutes > 0 && config.nodeType === 'master')
    every(config.channelTestFrequencyMinutes * 60, () => {
      deps.testChannels();
      return Promise.resolve();
    });
  every(15, deps.recoverBilling);
  // The console's roll-ups follow the logs within a second or so (every instance may run it).
  every(1, () => services.rollups.catchUp());
  every(3600, async () => {
    await services.sessions.purgeExpired();
    await services.codes.purgeExpired();
    await services.audit.purgeExpired();
    await services.alerts.purgeExpired();
  });
  return timers;
};
