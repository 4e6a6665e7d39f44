import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dsn.js';
import { DAY, HOUR, ROLLUP_STATE_NAME, ROLLUP_STATE_TABLE } from '../log-rollup-tables.js';

// Kysely's migrations work on an untyped database by design: the schema is what they change.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

const TOKEN_CUBE = 'sluice_log_by_token';
const KEYS = ['user_id', 'username', 'token_name', 'channel_id', 'model_name', 'client_format'] as const;
const SUMS = ['requests', 'quota', 'prompt_tokens', 'completion_tokens'] as const;

/**
 * Migration 0016 (0005 on a separate logs database): `by_token` gets day buckets, summed from its
 * hour buckets, so that a key's history reads one row per day and model instead of one per hour
 * (until now it kept hours only). The roll-up job writes both widths from here on. The watermark's
 * row is held meanwhile, so that no fold lands between the two statements; the day rows are
 * deleted first, so the sum is right whatever an earlier attempt left.
 */
export const addTokenDayBuckets = async (db: AnyDb, dialect: Dialect): Promise<void> => {
  const fill = async (trx: AnyDb) => {
    const state = trx.selectFrom(ROLLUP_STATE_TABLE).select('last_id').where('name', '=', ROLLUP_STATE_NAME);
    await (dialect === 'sqlite' ? state : state.forUpdate()).execute();
    await trx.deleteFrom(TOKEN_CUBE).where('span', '=', DAY).execute();
    const day = sql<number>`bucket - (bucket % ${sql.lit(DAY)})`;
    await trx
      .insertInto(TOKEN_CUBE)
      .columns(['span', 'bucket', ...KEYS, ...SUMS])
      .expression(
        trx
          .selectFrom(TOKEN_CUBE)
          .select([
            sql.lit(DAY).as('span'),
            day.as('day'),
            ...KEYS,
            ...SUMS.map((column) => sql<number>`SUM(${sql.ref(column)})`.as(column)),
          ])
          .where('span', '=', HOUR)
          .groupBy([day, ...KEYS]),
      )
      .execute();
  };
  if (db.isTransaction) await fill(db);
  else await db.transaction().execute(fill);
};
