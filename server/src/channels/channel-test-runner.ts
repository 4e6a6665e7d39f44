import { CHANNEL_STATUS } from '@sluice/contract/statuses';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Tables } from '../db/tables.js';
import type { OptionStore } from '../services/option-store.js';
import type { AdaptorSettings } from '../relay/providers/adaptor.js';
import type { ChannelKeyStates } from './channel-key-states.js';
import type { ChannelStatus } from './channel-status.js';
import { testChannel } from './channel-test.js';
import { shouldDisableChannel } from './disable-rules.js';
import type { Upstream } from '../relay/upstream/upstream.js';

export type TestScope = 'all' | 'disabled';

export interface TestProgress {
  readonly running: boolean;
  readonly scope: TestScope | '';
  readonly done: number;
  readonly total: number;
  readonly failed: number;
}

/**
 * Tests channels one after another in the background (one run at a time per instance): disables
 * enabled channels that fail by one-api's rules or answer slower than ChannelDisableThreshold, and
 * re-enables automatically disabled ones that pass, as the options allow.
 */
export const createChannelTestRunner = (deps: {
  db: Kysely<Tables>;
  upstream: Upstream;
  options: OptionStore;
  status: ChannelStatus;
  logger: Logger;
  timeoutMs: number;
  adaptorSettings?: AdaptorSettings;
  /** A channel's several keys' states: the test disables a refused key and re-enables a passing one. */
  keyStates?: ChannelKeyStates;
  /** A pause between two channels (POLLING_INTERVAL), so a run does not hit providers in a burst. */
  pauseMs?: number;
  /** Tells root (a slow channel when automatic disabling is off). */
  notifyRoot?: (title: string, content: string) => void;
  track: (work: Promise<unknown>) => void;
}) => {
  let progress: TestProgress = { running: false, scope: '', done: 0, total: 0, failed: 0 };

  const run = async (scope: TestScope): Promise<void> => {
    let query = deps.db.selectFrom('channels').selectAll().orderBy('id');
    if (scope === 'disabled')
      query = query.where('status', 'in', [CHANNEL_STATUS.manuallyDisabled, CHANNEL_STATUS.autoDisabled]);
    const rows = await query.execute();
    progress = { running: true, scope, done: 0, total: rows.length, failed: 0 };
    for (const [index, row] of rows.entries()) {
      if (index > 0 && deps.pauseMs) await new Promise((resolve) => setTimeout(resolve, deps.pauseMs));
      const options = deps.options.values;
      const result = await testChannel(deps, row, '');
      const threshold = options.ChannelDisableThreshold;
      const slow = result.success && threshold > 0 && result.time > threshold;
      const slowness = `the test took ${result.time.toFixed(2)} s, over ${threshold} s`;
      if (row.status === CHANNEL_STATUS.enabled && options.AutomaticDisableChannelEnabled) {
        if (result.error && shouldDisableChannel(result.error))
          await deps.status.disable(row.id, result.message);
        else if (slow) await deps.status.disable(row.id, slowness);
      } else if (row.status === CHANNEL_STATUS.enabled && slow)
        // As one-api: with automatic disabling off, root still hears of a channel that is too slow.
        deps.notifyRoot?.(
          `channel ${row.name ?? ''} (#${row.id}) test timed out`,
          `channel ${row.name ?? ''} (#${row.id}): ${slowness}`,
        );
      if (
        row.status === CHANNEL_STATUS.autoDisabled &&
        result.success &&
        options.AutomaticEnableChannelEnabled
      )
        await deps.status.enable(row.id);
      progress = { ...progress, done: progress.done + 1, failed: progress.failed + (result.success ? 0 : 1) };
    }
  };

  return {
    progress: (): TestProgress => progress,
    /** Starts a run; false when one is already running. */
    start: (scope: TestScope): boolean => {
      if (progress.running) return false;
      progress = { running: true, scope, done: 0, total: 0, failed: 0 };
      deps.track(
        run(scope)
          .catch((error: unknown) => deps.logger.error({ err: error }, 'channel test run failed'))
          .finally(() => {
            progress = { ...progress, running: false };
          }),
      );
      return true;
    },
  };
};

export type ChannelTestRunner = ReturnType<typeof createChannelTestRunner>;
