/**
 * The balances a batch of settlements moves, one UPDATE per table (not one per user, key and
 * channel): `col = col ± CASE id WHEN … END` over the ids concerned. On PostgreSQL and MySQL the rows
 * are first locked in id order (`SELECT … ORDER BY id FOR UPDATE`), so that two instances' batches
 * never deadlock each other; SQLite has one writer at a time.
 */
import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { Dialect } from '../../db/dsn.js';
import type { Tables } from '../../db/tables.js';
import { ReservationMoved } from './reservation-rows.js';

export interface Sums {
  /** What the balance moves by: cost minus reservation (limited keys only, for tokens). */
  balance: number;
  used: number;
  requests: number;
}

/** Ids per statement: the CASE lists stay a few hundred parameters long. */
const CHUNK = 200;

const INTEGER: Record<Dialect, string> = { sqlite: 'INTEGER', postgres: 'BIGINT', mysql: 'SIGNED' };

const chunks = <Id>(ids: readonly Id[]): Id[][] => {
  const out: Id[][] = [];
  for (let start = 0; start < ids.length; start += CHUNK) out.push(ids.slice(start, start + CHUNK));
  return out;
};

export const createBalanceMoves = (trx: Transaction<Tables>, dialect: Dialect) => {
  /** `CASE id WHEN … THEN … END`, each value cast to an integer (PostgreSQL cannot infer it). */
  const caseOf = <Id extends number | string>(
    ids: readonly Id[],
    value: (id: Id) => number,
  ): RawBuilder<number> =>
    sql<number>`CASE id ${sql.join(
      ids.map((id) => sql`WHEN ${id} THEN CAST(${value(id)} AS ${sql.raw(INTEGER[dialect])})`),
      sql` `,
    )} END`;

  const lock = async (table: 'users' | 'tokens' | 'channels', ids: readonly number[]) => {
    if (dialect !== 'sqlite')
      await trx.selectFrom(table).select('id').where('id', 'in', ids).orderBy('id').forUpdate().execute();
  };

  const sorted = (map: ReadonlyMap<number, Sums>) => [...map.keys()].sort((left, right) => left - right);
  const of = (map: ReadonlyMap<number, Sums>, id: number): Sums =>
    map.get(id) ?? { balance: 0, used: 0, requests: 0 };

  return {
    users: async (sums: ReadonlyMap<number, Sums>) => {
      for (const ids of chunks(sorted(sums))) {
        await lock('users', ids);
        await trx
          .updateTable('users')
          .set((eb) => ({
            quota: eb(
              'quota',
              '-',
              caseOf(ids, (id) => of(sums, id).balance),
            ),
            used_quota: eb(
              'used_quota',
              '+',
              caseOf(ids, (id) => of(sums, id).used),
            ),
            request_count: eb(
              'request_count',
              '+',
              caseOf(ids, (id) => of(sums, id).requests),
            ),
          }))
          .where('id', 'in', ids)
          .execute();
      }
    },
    /** Keys: their used quota and access time; the remaining quota of limited keys only. */
    tokens: async (sums: ReadonlyMap<number, Sums>, limited: ReadonlySet<number>, now: number) => {
      for (const ids of chunks(sorted(sums))) {
        await lock('tokens', ids);
        const anyLimited = ids.some((id) => limited.has(id));
        await trx
          .updateTable('tokens')
          .set((eb) => ({
            ...(anyLimited
              ? {
                  remain_quota: eb(
                    'remain_quota',
                    '-',
                    caseOf(ids, (id) => (limited.has(id) ? of(sums, id).balance : 0)),
                  ),
                }
              : {}),
            used_quota: eb(
              'used_quota',
              '+',
              caseOf(ids, (id) => of(sums, id).used),
            ),
            accessed_time: now,
          }))
          .where('id', 'in', ids)
          .execute();
      }
    },
    /**
     * Draws each settled cost from its pool's row; a row a recovery released meanwhile (read held,
     * now not) makes the whole transaction roll back: its amounts were worked out wrong.
     */
    reservations: async (draws: ReadonlyMap<string, number>) => {
      for (const chunk of chunks([...draws.keys()])) {
        const drawn = await trx
          .updateTable('sluice_reservations')
          .set((eb) => ({
            quota: eb(
              'quota',
              '-',
              caseOf(chunk, (id) => draws.get(id) ?? 0),
            ),
          }))
          .where('id', 'in', chunk)
          .where('released_at', '=', 0)
          .executeTakeFirst();
        if (Number(drawn.numUpdatedRows) !== chunk.length)
          throw new ReservationMoved('a reservation was released while its settlement was being written');
      }
    },
    channels: async (sums: ReadonlyMap<number, Sums>) => {
      for (const ids of chunks(sorted(sums))) {
        await lock('channels', ids);
        await trx
          .updateTable('channels')
          .set((eb) => ({
            used_quota: eb(
              'used_quota',
              '+',
              caseOf(ids, (id) => of(sums, id).used),
            ),
          }))
          .where('id', 'in', ids)
          .execute();
      }
    },
  };
};
