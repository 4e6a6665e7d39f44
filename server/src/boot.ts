import type { Logger } from 'pino';
import { createApp, type App } from './app.js';
import { createHttpListener, type HttpListener } from './http-listener.js';
import { createMetrics } from './http/metrics.js';
import type { Cache } from './cache/cache.js';
import { createChannelHealth } from './boot-channels.js';
import { createNotices } from './boot-notices.js';
import { startBackgroundTimers } from './boot-timers.js';
import { openCache } from './cache/open-cache.js';
import type { Config } from './config/env.js';
import { createBackgroundWork } from './lib/background-work.js';
import { openDatabase, type Database } from './db/database.js';
import { ensureLogIndexes } from './db/migrations/log-indexes.js';
import { migrate, pendingMigrations } from './db/migrations/migrations.js';
import type { AppError } from './lib/app-error.js';
import { nowSeconds } from './lib/time.js';
import { ensureRootUser } from './services/bootstrap.js';
import { createOptionStore } from './services/option-store.js';
import { createServices, type Services } from './services/services.js';
import { createChannelOperations } from './channels/channel-operations.js';
import { createBilling } from './relay/metering/billing.js';
import { openBillingDurability, type BillingDurability } from './relay/metering/billing-durability.js';
import { createRelayIndex } from './relay/routing/relay-index.js';
import { createChannelRouter } from './relay/routing/channel-router.js';
import { createMemoryLimitStore } from './relay/limits/memory-limit-store.js';
import { createRateLimiter } from './relay/limits/rate-limiter.js';
import { createRedisLimitStore } from './relay/limits/redis-limit-store.js';
import { createLiveCounters, LIVE_MINUTES } from './relay/routing/live-counters.js';
import { liveViews } from './relay/routing/live-snapshot.js';
import { DEFAULT_UPSTREAM_TIMEOUTS, createUpstream, upstreamTimeouts } from './relay/upstream/upstream.js';
import type { KeyAuth } from './relay/request/key-auth.js';
import { createChannelMetrics } from './channels/channel-metrics.js';
import { isKeyRefusal, shouldDisableChannel } from './channels/disable-rules.js';
import { createRefusalLogCap } from './relay/http/refusal-log-cap.js';
import { createRelayHttp } from './relay/http/relay-http.js';

export interface Sluice {
  readonly app: App;
  /** The node:http request listener: the relay's POST routes natively, the rest through `app`. */
  readonly listener: HttpListener;
  readonly services: Services;
  readonly database: Database;
  readonly logDatabase: Database;
  /** Background work: option re-sync and purge of expired sessions and codes. */
  startTimers(): void;
  /** Resolves when every settlement the relay started has been written. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

const openAll = async (config: Config, logger: Logger): Promise<{ main: Database; logs: Database }> => {
  const logQuery = config.debugSql
    ? (sql: string, ms: number) => logger.debug({ sql, ms }, 'sql')
    : undefined;
  const common = {
    sqlitePath: config.sqlitePath,
    sqliteBusyTimeoutMs: config.sqliteBusyTimeoutMs,
    maxConnections: config.sqlMaxOpenConns,
    logQuery,
  };
  const main = await openDatabase({ ...common, dsn: config.sqlDsn });
  const logs = config.logSqlDsn ? await openDatabase({ ...common, dsn: config.logSqlDsn }) : main;
  return { main, logs };
};

/** How often a slave looks whether the master has migrated the database. */
const SCHEMA_POLL_MS = 1000;

/**
 * A slave never migrates (as one-api's): it waits until the master has, rather than start on a
 * database without Sluice's tables and answer 500s. Said in the log every 10 s while it waits.
 */
const waitForSchema = async (main: Database, logs: Database, logger: Logger): Promise<void> => {
  for (let waited = 0; ; waited += 1) {
    const pending = await pendingMigrations(main.db, main.dialect, 'main', logs === main);
    if (logs !== main) pending.push(...(await pendingMigrations(logs.db, logs.dialect, 'logs')));
    if (pending.length === 0) return;
    if (waited % 10 === 0)
      logger.warn(
        { pending },
        'NODE_TYPE=slave: waiting for a master to migrate the database (a slave never migrates)',
      );
    await new Promise((resolve) => setTimeout(resolve, SCHEMA_POLL_MS));
  }
};

/** Opens everything Sluice needs and builds the app; the caller listens. */
export const bootSluice = async (config: Config, logger: Logger): Promise<Sluice> => {
  const { main, logs } = await openAll(config, logger);
  let cache: Cache | undefined;
  let durability: BillingDurability | undefined;
  try {
    if (config.nodeType === 'master') {
      const applied = await migrate(main.db, main.dialect, 'main', logs === main);
      if (logs !== main) applied.push(...(await migrate(logs.db, logs.dialect, 'logs')));
      if (applied.length > 0) logger.info({ migrations: applied }, 'database migrated');
      await ensureLogIndexes(logs.db, logs.dialect);
    } else await waitForSchema(main, logs, logger);
    await ensureRootUser(main.db, main.dialect, config, logger);
    cache = await openCache(config, logger);
    const options = await createOptionStore({ db: main.db, dialect: main.dialect, cache, logger });
    const services = createServices({
      config,
      db: main.db,
      dialect: main.dialect,
      logDb: logs.db,
      logDialect: logs.dialect,
      logReadDb: logs.readDb,
      logMaintenanceDb: logs.maintenanceDb,
      cache,
      options,
      logger,
    });
    const background = createBackgroundWork(logger);
    const { track } = background;
    const opened = await openBillingDurability({
      db: main.db,
      logDb: logs.db,
      dialect: main.dialect,
      journalDir: config.billingJournalDir,
      logger,
    });
    durability = opened;
    const metrics = createMetrics();
    const upstream = createUpstream(
      upstreamTimeouts(config.relayTimeoutSeconds, DEFAULT_UPSTREAM_TIMEOUTS, config.relayStepTimeouts),
      config.relayProxy,
    );
    const adaptorSettings = { geminiVersion: config.geminiVersion, geminiSafety: config.geminiSafetySetting };
    const { rootNotifier, quotaReminder, budgetWarning, keyQuotaAlerts } = createNotices({
      config,
      db: main.db,
      dialect: main.dialect,
      services,
      options,
      track,
      logger,
    });
    const { channelStatus, channelKeys, testTimeoutMs, runner, breaker } = createChannelHealth({
      config,
      db: main.db,
      logDb: logs.db,
      dialect: main.dialect,
      services,
      options,
      cache,
      upstream,
      adaptorSettings,
      notifyRoot: rootNotifier.notifyRoot,
      track,
      logger,
    });
    // The live dashboard's per-minute counters: in memory, or added up across instances in Redis.
    const live = createLiveCounters({
      run: cache.runScript,
      warn: (error) => logger.warn({ err: error }, 'live dashboard: Redis did not take the counts'),
    });
    const channelOperations = {
      ...createChannelOperations({
        db: main.db,
        upstream,
        runner,
        testTimeoutMs,
        pauseMs: config.pollingIntervalSeconds * 1000,
        adaptorSettings,
        keyStates: channelKeys,
      }),
      breaker: breaker.view,
      live: liveViews(live, LIVE_MINUTES),
    };
    const channelMetrics = config.enableMetric
      ? createChannelMetrics({
          size: config.metricQueueSize,
          threshold: config.metricSuccessRateThreshold,
          disable: (channelId, reason) => track(channelStatus.disable(channelId, reason)),
        })
      : undefined;
    // The relay's rate limits: exact across instances in Redis, else in this instance's memory.
    const limiter = createRateLimiter({
      store: cache.runScript ? createRedisLimitStore(cache.runScript) : createMemoryLimitStore(),
      logger,
      onStoreFailure: metrics.relayLimiterUnavailable,
    });
    const relay = {
      // As one-api: a failure that qualifies disables at once; any other counts against the success rate.
      onChannelFailure: (channelId: number, error: AppError) => {
        if (options.values.AutomaticDisableChannelEnabled && shouldDisableChannel(error))
          track(channelStatus.disable(channelId, error.message));
        else channelMetrics?.failure(channelId);
      },
      // A key of several the upstream refuses (401, 403, or one-api's rule) is disabled alone.
      onKeyRefused: (channelId: number, keyId: string, error: AppError) => {
        if (!isKeyRefusal(error)) return false;
        track(channelKeys.disable(channelId, keyId, error.message));
        return true;
      },
      onChannelSuccess: channelMetrics?.success,
      adaptorSettings,
      onQuotaChecked: (auth: KeyAuth, quota: number, estimate: number) => {
        quotaReminder.observe(auth.user, quota, estimate);
        keyQuotaAlerts.observe(auth.token, estimate, auth.user.token_alert_threshold);
      },
      config,
      db: main.db,
      index: createRelayIndex(main.db, services.changes),
      changes: services.changes,
      options,
      billing: createBilling({
        db: main.db,
        logDb: logs.db,
        dialect: main.dialect,
        changes: services.changes,
        journal: opened.journal,
        lag: metrics.billingLag,
        budgetWarning: budgetWarning.observe,
      }),
      upstream,
      logger,
      track,
      // The strategies, the conversations' pins (shared through Redis when set), the cache-hit metrics.
      router: createChannelRouter({
        run: cache.runScript,
        registry: metrics.registry,
        warn: (error: unknown) => logger.warn({ err: error }, 'conversation affinity: Redis did not answer'),
        live,
      }),
      limiter,
      breaker,
    };
    const app = createApp({
      services,
      logger,
      metrics,
      startTime: nowSeconds(),
      relay,
      channelOperations,
    });
    /** Every settlement written, and the quota pools with nothing in flight given back to their users. */
    const idle = async () => {
      await background.settled();
      await relay.billing.giveBackPools();
    };
    const timers: NodeJS.Timeout[] = [];
    let closing: Promise<void> | undefined;
    const instanceCache = cache;
    const refusals = createRefusalLogCap(logger);
    return {
      app,
      listener: createHttpListener(app, createRelayHttp({ relay, metrics, logger, refusals })),
      services,
      database: main,
      logDatabase: logs,
      startTimers: () => {
        timers.push(
          ...startBackgroundTimers({
            config,
            services,
            options,
            revalidateIndex: () => relay.index.revalidate(),
            testChannels: () => runner.start('all'),
            recoverBilling: () => opened.recover(),
            logger,
          }),
        );
      },
      idle,
      // Once: a second call waits for the first.
      close: () =>
        (closing ??= (async () => {
          for (const timer of timers) clearInterval(timer);
          refusals.flush();
          await services.rollups.stop();
          // Settlements still wait a little for a database that is away, then stay in the journal.
          relay.billing.stopRetrying();
          // Alert webhooks waiting for their next attempt give up (recorded as failed).
          services.alerts.stop();
          // A pool that cannot be given back (the database away) is left to the recovery.
          await idle().catch((error: unknown) => logger.error({ err: error }, 'quota pools not given back'));
          await opened.close();
          await upstream.close();
          await instanceCache.close();
          if (logs !== main) await logs.close();
          await main.close();
        })()),
    };
  } catch (error) {
    await durability?.close().catch(() => undefined);
    await cache?.close();
    if (logs !== main) await logs.close();
    await main.close();
    throw error;
  }
};
