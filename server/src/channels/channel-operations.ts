import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { CHANNEL_STATUS } from '@sluice/contract/statuses';
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import { modelObject } from '../relay/http/model-list.js';
import type { AdaptorSettings } from '../relay/providers/adaptor.js';
import { PROVIDERS } from '../relay/providers/registry.js';
import type { Upstream } from '../relay/upstream/upstream.js';
import { supportsBalance, updateBalance } from './channel-balance.js';
import { testChannel } from './channel-test.js';
import type { ChannelKeyStates } from './channel-key-states.js';
import type { ChannelTestRunner } from './channel-test-runner.js';

export interface ChannelOperationsDeps {
  readonly db: Kysely<Tables>;
  readonly upstream: Upstream;
  readonly runner: ChannelTestRunner;
  readonly testTimeoutMs: number;
  /** The pause between two channels of a balance-all run (POLLING_INTERVAL). */
  readonly pauseMs: number;
  readonly adaptorSettings: AdaptorSettings;
  /** A channel's several keys' states (listed and re-enabled by administrators, kept by the tests). */
  readonly keyStates: ChannelKeyStates;
}

/**
 * Families other hosts serve too (Bedrock, Vertex AI list current Claude ids Anthropic's own list
 * predates): the price list names their maker, whoever serves them.
 */
const MAKERS: readonly (readonly [family: RegExp, owner: string])[] = [
  [/^claude-/, 'anthropic'],
  [/^(gemini-|gemma-)/, 'google gemini'],
];

const findChannel = (db: Kysely<Tables>, id: number) =>
  db.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirst();

/**
 * The channel operations that call providers (tests, balances) and the model catalogue, for the
 * console's /api routes: `api/channel-operation-routes.ts` declares what it needs, boot.ts passes this.
 */
export const createChannelOperations = (deps: ChannelOperationsDeps) => ({
  catalogue: Object.fromEntries(Object.entries(PROVIDERS).map(([type, provider]) => [type, provider.models])),
  builtInModels: Object.values(PROVIDERS)
    .filter((provider) => provider.type !== CHANNEL_TYPE.azure)
    .flatMap((provider) => provider.models.map((model) => modelObject(model)))
    .filter((model) => model !== undefined),
  modelOwner: (model: string, channelType: number): string =>
    MAKERS.find(([family]) => family.test(model))?.[1] ??
    modelObject(model)?.owned_by ??
    Object.values(PROVIDERS).find((provider) => provider.type === channelType)?.owner ??
    'custom',
  startTests: (scope: 'all' | 'disabled') => deps.runner.start(scope),
  testProgress: () => deps.runner.progress(),
  test: async (id: number, model: string) => {
    const row = await findChannel(deps.db, id);
    if (!row) return undefined;
    const result = await testChannel(
      {
        db: deps.db,
        upstream: deps.upstream,
        timeoutMs: deps.testTimeoutMs,
        adaptorSettings: deps.adaptorSettings,
        keyStates: deps.keyStates,
      },
      row,
      model,
    );
    return {
      success: result.success,
      message: result.message,
      time: result.time,
      model: result.model,
      ...(result.keys ? { keys: result.keys } : {}),
    };
  },
  keys: (id: number) => deps.keyStates.list(id),
  enableKey: (id: number, keyId: string) => deps.keyStates.enable(id, keyId),
  updateAllBalances: async (): Promise<number> => {
    const rows = await deps.db
      .selectFrom('channels')
      .selectAll()
      .where('status', '=', CHANNEL_STATUS.enabled)
      .execute();
    let updated = 0;
    for (const [index, row] of rows.filter((candidate) => supportsBalance(candidate.type)).entries()) {
      if (index > 0 && deps.pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, deps.pauseMs));
      try {
        await updateBalance(deps, row);
        updated += 1;
      } catch {
        // one channel's failure does not stop the others
      }
    }
    return updated;
  },
  updateBalance: async (id: number): Promise<number | undefined> => {
    const row = await findChannel(deps.db, id);
    return row ? updateBalance(deps, row) : undefined;
  },
});
