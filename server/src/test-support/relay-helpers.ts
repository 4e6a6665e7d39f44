import { LOG_TYPE } from '@sluice/contract/statuses';
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import { completionRatio, modelRatio } from '../services/ratio.js';
import { startOpenAiDouble, type OpenAiDouble } from './openai-double.js';
import type { RelayFixture, RelayUser } from './relay-fixture.js';

/** A relay answer read whole: status, content type, text and (when JSON) the parsed body. */
export interface RelayAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
  readonly json: { error?: { message?: string; type?: string; code?: unknown } } & Record<string, unknown>;
}

/** POSTs a JSON body to the running relay with a raw `Authorization: Bearer <key>` (no SDK retries). */
export const relayPost = async (
  fixture: RelayFixture,
  authorization: string,
  path: string,
  body: unknown,
): Promise<RelayAnswer> => {
  const response = await fetch(`${fixture.server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${authorization}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: RelayAnswer['json'];
  try {
    json = JSON.parse(text) as RelayAnswer['json'];
  } catch {
    json = {};
  }
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', text, json };
};

/**
 * The price one-api's formula gives a usage on a channel type at the default ratios:
 * ceil((prompt + completion × completion ratio) × model ratio), float noise ignored.
 */
export const formulaCost = (model: string, type: number, prompt: number, completion: number): number =>
  Math.ceil(
    Math.round(
      (prompt + completion * completionRatio(model, type, {})) * modelRatio(model, type, {}).ratio * 1e6,
    ) / 1e6,
  );

/** A one-message chat body. */
export const chatBody = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: 'user', content: 'Hello!' }],
  ...extra,
});

/** Consume log rows (type 2) of a user, oldest first, numbers normalised across dialects. */
export const consumeLogs = async (db: Kysely<Tables>, userId: number) => {
  const rows = await db
    .selectFrom('logs')
    .selectAll()
    .where('user_id', '=', userId)
    .where('type', '=', LOG_TYPE.consume)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    ...row,
    quota: Number(row.quota),
    prompt_tokens: Number(row.prompt_tokens),
    completion_tokens: Number(row.completion_tokens),
    channel_id: Number(row.channel_id),
    is_stream: Boolean(row.is_stream),
    system_prompt_reset: Boolean(row.system_prompt_reset),
  }));
};

/** The counters of a user the relay moves. */
export const userCounters = async (db: Kysely<Tables>, userId: number) => {
  const row = await db
    .selectFrom('users')
    .select(['quota', 'used_quota', 'request_count', 'username'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  return {
    quota: Number(row.quota),
    used_quota: Number(row.used_quota),
    request_count: Number(row.request_count),
    username: row.username,
  };
};

/** The counters and status of a key. */
export const tokenCounters = async (db: Kysely<Tables>, tokenId: number) => {
  const row = await db
    .selectFrom('tokens')
    .select(['remain_quota', 'used_quota', 'status'])
    .where('id', '=', tokenId)
    .executeTakeFirstOrThrow();
  return {
    remain_quota: Number(row.remain_quota),
    used_quota: Number(row.used_quota),
    status: Number(row.status),
  };
};

/** used_quota of a channel. */
export const channelUsedQuota = async (db: Kysely<Tables>, channelId: number): Promise<number> => {
  const row = await db
    .selectFrom('channels')
    .select('used_quota')
    .where('id', '=', channelId)
    .executeTakeFirstOrThrow();
  return Number(row.used_quota);
};

/** Starts OpenAI doubles for one test and closes them all afterwards. */
export const doublePool = () => {
  const open: OpenAiDouble[] = [];
  return {
    start: async (): Promise<OpenAiDouble> => {
      const double = await startOpenAiDouble();
      open.push(double);
      return double;
    },
    closeAll: async (): Promise<void> => {
      await Promise.all(open.splice(0).map((double) => double.close()));
    },
  };
};

/** gpt-4o: model ratio 2.5, completion ratio 4 (one-api's defaults): ceil((p + c × 4) × 2.5 × group). */
export const gpt4oCost = (prompt: number, completion: number, group = 1) =>
  Math.ceil((prompt + completion * 4) * 2.5 * group);

/**
 * Streams a long answer through the SDK and goes away after `after` chunks, as a client that closes
 * the connection; answers how many chunks it read.
 */
export const streamAndLeave = async (user: RelayUser, model: string, after = 4): Promise<number> => {
  const controller = new AbortController();
  const stream = await user.sdk.chat.completions.create(
    { model, stream: true, messages: [{ role: 'user', content: 'long' }] },
    { signal: controller.signal },
  );
  let chunks = 0;
  try {
    for await (const _chunk of stream) {
      chunks += 1;
      if (chunks === after) controller.abort();
    }
  } catch {
    // the SDK may end the iteration or throw on abort: either way the client is gone
  }
  return chunks;
};
