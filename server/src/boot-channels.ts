import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Cache } from './cache/cache.js';
import { createChannelKeyStates } from './channels/channel-key-states.js';
import { createChannelStatus } from './channels/channel-status.js';
import { createChannelTestRunner } from './channels/channel-test-runner.js';
import type { Config } from './config/env.js';
import type { Dialect } from './db/dsn.js';
import type { Tables } from './db/tables.js';
import type { AdaptorSettings } from './relay/providers/adaptor.js';
import { createChannelBreaker } from './relay/routing/channel-breaker.js';
import type { Upstream } from './relay/upstream/upstream.js';
import { createBreakerAlerts } from './services/breaker-alerts.js';
import type { OptionStore } from './services/option-store.js';
import type { Services } from './services/services.js';

export interface ChannelHealthDeps {
  readonly config: Config;
  readonly db: Kysely<Tables>;
  readonly logDb: Kysely<Tables>;
  readonly dialect: Dialect;
  readonly services: Services;
  readonly options: OptionStore;
  readonly cache: Cache;
  readonly upstream: Upstream;
  readonly adaptorSettings: AdaptorSettings;
  /** Root's message (pusher, else mail). */
  readonly notifyRoot: (title: string, content: string) => void;
  readonly track: (work: Promise<unknown>) => void;
  readonly logger: Logger;
}

/**
 * What keeps an instance's channels healthy: their status (disabled automatically, with an alert),
 * their keys' states, the channel tests, and the breaker (in memory, its openings shared through
 * Redis when it is set).
 */
export const createChannelHealth = (deps: ChannelHealthDeps) => {
  const { config, db, services, options, cache, logger, track } = deps;
  const channelStatus = createChannelStatus({
    db,
    logDb: deps.logDb,
    changes: services.changes,
    logger,
    // Root's message (pusher, else mail) and the webhooks, under the alert cooldown.
    alert: (move) =>
      track(
        services.alerts.raise({
          event: move.event,
          objectId: String(move.channelId),
          data: { channel_id: move.channelId, name: move.name, reason: move.reason },
          mail: () => Promise.resolve(deps.notifyRoot(move.title, move.content)),
        }),
      ),
  });
  const channelKeys = createChannelKeyStates({
    db,
    dialect: deps.dialect,
    changes: services.changes,
    logger,
  });
  const testTimeoutMs = (config.relayTimeoutSeconds || 30) * 1000;
  const runner = createChannelTestRunner({
    db,
    upstream: deps.upstream,
    options,
    status: channelStatus,
    logger,
    timeoutMs: testTimeoutMs,
    pauseMs: config.pollingIntervalSeconds * 1000,
    notifyRoot: deps.notifyRoot,
    adaptorSettings: deps.adaptorSettings,
    keyStates: channelKeys,
    track,
  });
  const runScript = cache.runScript;
  const breaker = createChannelBreaker({
    settings: () => ({
      failures: options.values.ChannelBreakerFailures,
      windowMs: options.values.ChannelBreakerWindowSeconds * 1000,
      cooldownMs: options.values.ChannelBreakerCooldownSeconds * 1000,
    }),
    share: runScript
      ? {
          publish: (topic, message) => cache.publish(topic, message),
          subscribe: (topic, handler) => cache.subscribe(topic, handler),
          onResync: (handler) => cache.onResync(handler),
          runScript,
        }
      : undefined,
    warn: (error, doing) => logger.warn({ err: error }, `channel breaker: ${doing} failed`),
    onTransition: createBreakerAlerts({ db, raise: services.alerts.raise, track }),
  });
  return { channelStatus, channelKeys, testTimeoutMs, runner, breaker };
};
