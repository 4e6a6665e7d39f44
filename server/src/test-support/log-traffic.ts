import { LOG_TYPE } from '@sluice/contract/statuses';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { expect } from 'vitest';
import { bucketStart } from '../db/day-bucket.js';
import { CUBES, DIMENSIONS, withRollups, type Dimension } from '../db/log-rollup-tables.js';
import { sqlNumber } from '../db/sql-number.js';
import type { Tables } from '../db/tables.js';
import { readWatermark } from '../services/log-rollup-writes.js';
import type { LogFixture } from './log-fixtures.js';

const DAY = 86_400;

/** A small seeded generator (mulberry32), so that a failure replays. */
export const seededRandom = (seed: number) => {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const between = (low: number, high: number) => low + Math.floor(next() * (high - low + 1));
  return { next, pick, between };
};

export interface TrafficUser {
  readonly id: number;
  readonly username: string;
}

export const TRAFFIC_MODELS = ['gpt-4o', 'claude-3', 'gemini-pro', '', null] as const;
export const TRAFFIC_CHANNELS = [0, 1, 2, 3, 4] as const;
export const TRAFFIC_FORMATS = ['openai', 'anthropic', null] as const;
const TYPES = [
  LOG_TYPE.consume,
  LOG_TYPE.consume,
  LOG_TYPE.consume,
  LOG_TYPE.consume,
  LOG_TYPE.topup,
  LOG_TYPE.manage,
  LOG_TYPE.system,
  LOG_TYPE.test,
  LOG_TYPE.unknown,
];

/** Token names of a user: one shared by everyone ('default'), two of their own. */
export const tokensOf = (user: TrafficUser) => [
  'default',
  `${user.username}-key-1`,
  `${user.username}-key-2`,
];

/**
 * Random log rows of every type for the users (and a user one-api deleted), keys, channels,
 * models and client formats, spread over the `days` before `now` at any second, with a few far in
 * the past and a few ahead of now (none within 5 minutes of it, so that a second ticking during a
 * suite moves no row in or out of a window ending now); consumption rows carry quota and tokens.
 */
export const randomTraffic = (
  random: ReturnType<typeof seededRandom>,
  users: readonly TrafficUser[],
  count: number,
  now: number,
  days = 10,
): LogFixture[] =>
  Array.from({ length: count }, () => {
    const user = random.next() < 0.05 ? { id: 9_999, username: 'ghost' } : random.pick(users);
    const roll = random.next();
    const time =
      roll < 0.03
        ? now - 400 * DAY + random.between(0, DAY)
        : roll < 0.05
          ? now + random.between(300, 3000)
          : now - random.between(300, days * DAY);
    // Many rows on the edges of hours and days, where a bucket and a raw edge meet.
    const snap = random.next();
    const createdAt =
      snap < 0.1
        ? time - (time % 3600)
        : snap < 0.15
          ? time - (time % 3600) - 1
          : snap < 0.2
            ? time - (time % DAY)
            : snap < 0.22
              ? time - (time % DAY) - 1
              : time;
    const type = random.pick(TYPES);
    const consume = type === LOG_TYPE.consume;
    return {
      user_id: user.id,
      username: user.username,
      created_at: createdAt,
      type,
      content: `row at ${createdAt}`,
      token_name: consume ? random.pick(tokensOf(user)) : '',
      model_name: consume ? random.pick(TRAFFIC_MODELS) : '',
      channel_id: consume ? random.pick(TRAFFIC_CHANNELS) : 0,
      client_format: consume ? random.pick(TRAFFIC_FORMATS) : null,
      quota: consume ? random.between(0, 5000) : type === LOG_TYPE.topup ? 100_000 : 0,
      prompt_tokens: consume ? random.between(0, 900) : 0,
      completion_tokens: consume ? random.between(0, 700) : 0,
    };
  });

const coalesced: Record<Dimension, RawBuilder<unknown>> = {
  user_id: sql`COALESCE(user_id, 0)`,
  username: sql`COALESCE(username, '')`,
  token_name: sql`COALESCE(token_name, '')`,
  channel_id: sql`COALESCE(channel_id, 0)`,
  model_name: sql`COALESCE(model_name, '')`,
  client_format: sql`COALESCE(client_format, '')`,
};

const normalise = (rows: readonly Record<string, unknown>[]) =>
  rows
    .map((row) =>
      JSON.stringify(
        Object.fromEntries(
          Object.entries(row)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([key, value]) => [key, typeof value === 'string' ? value : sqlNumber(value)]),
        ),
      ),
    )
    .sort();

/**
 * Each cube, at each span, holds exactly the sums of the consumption rows up to the watermark,
 * grouped by its dimensions and bucket with plain SQL over the logs; no emptied row lingers; every
 * such row's id lies in its hour's id range.
 */
export const expectRollupsMatchLogs = async (db: Kysely<Tables>): Promise<void> => {
  const watermark = await readWatermark(db);
  const rollups = withRollups(db);
  for (const cube of CUBES) {
    const others = DIMENSIONS.filter((dimension) => !cube.dimensions.includes(dimension));
    for (const span of cube.spans) {
      const stored = await rollups
        .selectFrom(cube.name)
        .select(['bucket', ...cube.dimensions, 'requests', 'quota', 'prompt_tokens', 'completion_tokens'])
        .where('span', '=', span)
        .execute();
      const unused = await rollups
        .selectFrom(cube.name)
        .select((eb) => eb.fn.countAll().as('n'))
        .where((eb) =>
          eb.or([
            eb('requests', '=', 0),
            ...others.map((dimension) => eb(dimension, '<>', dimension.endsWith('_id') ? 0 : '')),
          ]),
        )
        .executeTakeFirstOrThrow();
      expect(sqlNumber(unused.n), `${cube.name}: emptied rows or unused dimensions`).toBe(0);
      const bucket = bucketStart('created_at', 0, span);
      const expected = await db
        .selectFrom('logs')
        .select([
          bucket.as('bucket'),
          ...cube.dimensions.map((dimension) => coalesced[dimension].as(dimension)),
          sql<number>`COUNT(*)`.as('requests'),
          sql<number>`SUM(quota)`.as('quota'),
          sql<number>`SUM(prompt_tokens)`.as('prompt_tokens'),
          sql<number>`SUM(completion_tokens)`.as('completion_tokens'),
        ])
        .where('type', '=', LOG_TYPE.consume)
        .where('id', '<=', watermark)
        .groupBy([bucket, ...cube.dimensions.map((dimension) => coalesced[dimension])])
        .execute();
      expect(normalise(stored), `${cube.name} at span ${span}`).toEqual(normalise(expected));
    }
  }
  const outside = await sql<{ n: unknown }>`SELECT COUNT(*) AS n FROM logs
    LEFT JOIN sluice_log_hours h ON h.hour = ${bucketStart('logs.created_at', 0, 3600)}
    WHERE logs.id <= ${watermark} AND (h.hour IS NULL OR logs.id < h.min_id OR logs.id > h.max_id)`.execute(
    db,
  );
  expect(sqlNumber(outside.rows[0]?.n), 'rows outside their hour’s id range').toBe(0);
};
