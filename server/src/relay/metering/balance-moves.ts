/**
 * The balances a batch of settlements moves, one UPDATE per table (not one per user, key and
 * channel): `col = col ± CASE id WHEN … END` over the ids concerned. On PostgreSQL and MySQL the rows
 * are first locked in id order (`SELECT … ORDER BY id FOR UPDATE`), so that two instances' batches
 * never deadlock each other; SQLite has one writer at a time.
 */
import { sql, type Compilable, type RawBuilder, type Transaction } from 'kysely';
import type { Dialect } from '../../db/dsn.js';
import { templated } from '../../db/query-template.js';
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

type Value = number | string;

/** `CASE id WHEN … THEN … END` over (id, value) pairs, each value cast to an integer (PostgreSQL cannot infer it). */
const caseOf = (dialect: Dialect, pairs: readonly (readonly [Value, Value])[]): RawBuilder<number> =>
  sql<number>`CASE id ${sql.join(
    pairs.map(([id, value]) => sql`WHEN ${id} THEN CAST(${value} AS ${sql.raw(INTEGER[dialect])})`),
    sql` `,
  )} END`;

/** Values laid out `width` per id (the id first) back as rows. */
const rowsOf = (values: readonly Value[], width: number): Value[][] => {
  const rows: Value[][] = [];
  for (let start = 0; start < values.length; start += width) rows.push(values.slice(start, start + width));
  return rows;
};

const pairs = (rows: readonly Value[][], column: number) =>
  rows.map((row) => [row[0] as Value, row[column] as Value] as const);

/**
 * Each statement is compiled by Kysely once per shape (table, number of ids) and then run with its
 * values (db/query-template.ts): a batch's few statements cost less than their compilation.
 */
export const createBalanceMoves = (trx: Transaction<Tables>, dialect: Dialect) => {
  const run = async (name: string, build: (...values: Value[]) => Compilable, values: Value[]) =>
    trx.executeQuery(templated(trx, name, build, values));

  const lock = async (table: 'users' | 'tokens' | 'channels', ids: readonly number[]) => {
    if (dialect !== 'sqlite')
      await run(
        `lock ${table} ${ids.length}`,
        (...locked) =>
          trx
            .selectFrom(table)
            .select('id')
            .where('id', 'in', locked as number[])
            .orderBy('id')
            .forUpdate(),
        [...ids],
      );
  };

  const sorted = (map: ReadonlyMap<number, Sums>) => [...map.keys()].sort((left, right) => left - right);
  const of = (map: ReadonlyMap<number, Sums>, id: number): Sums =>
    map.get(id) ?? { balance: 0, used: 0, requests: 0 };

  return {
    users: async (sums: ReadonlyMap<number, Sums>) => {
      for (const ids of chunks(sorted(sums))) {
        await lock('users', ids);
        const values = ids.flatMap((id) => {
          const { balance, used, requests } = of(sums, id);
          return [id, balance, used, requests];
        });
        await run(
          `move users ${ids.length}`,
          (...laid) => {
            const rows = rowsOf(laid, 4);
            return trx
              .updateTable('users')
              .set((eb) => ({
                quota: eb('quota', '-', caseOf(dialect, pairs(rows, 1))),
                used_quota: eb('used_quota', '+', caseOf(dialect, pairs(rows, 2))),
                request_count: eb('request_count', '+', caseOf(dialect, pairs(rows, 3))),
              }))
              .where(
                'id',
                'in',
                rows.map((row) => row[0] as number),
              );
          },
          values,
        );
      }
    },
    /** Keys: their used quota and access time; the remaining quota of limited keys only. */
    tokens: async (sums: ReadonlyMap<number, Sums>, limited: ReadonlySet<number>, now: number) => {
      for (const ids of chunks(sorted(sums))) {
        await lock('tokens', ids);
        const anyLimited = ids.some((id) => limited.has(id));
        const values = ids.flatMap((id) => {
          const { balance, used } = of(sums, id);
          return [id, limited.has(id) ? balance : 0, used];
        });
        await run(
          `move tokens ${ids.length} ${anyLimited}`,
          (at, ...laid) => {
            const rows = rowsOf(laid, 3);
            return trx
              .updateTable('tokens')
              .set((eb) => ({
                ...(anyLimited
                  ? { remain_quota: eb('remain_quota', '-', caseOf(dialect, pairs(rows, 1))) }
                  : {}),
                used_quota: eb('used_quota', '+', caseOf(dialect, pairs(rows, 2))),
                accessed_time: at as number,
              }))
              .where(
                'id',
                'in',
                rows.map((row) => row[0] as number),
              );
          },
          [now, ...values],
        );
      }
    },
    /**
     * Draws each settled cost from its pool's row; a row a recovery released meanwhile (read held,
     * now not) makes the whole transaction roll back: its amounts were worked out wrong.
     */
    reservations: async (draws: ReadonlyMap<string, number>) => {
      for (const chunk of chunks([...draws.keys()])) {
        const drawn = await run(
          `draw reservations ${chunk.length}`,
          (...laid) => {
            const rows = rowsOf(laid, 2);
            return trx
              .updateTable('sluice_reservations')
              .set((eb) => ({ quota: eb('quota', '-', caseOf(dialect, pairs(rows, 1))) }))
              .where(
                'id',
                'in',
                rows.map((row) => String(row[0])),
              )
              .where('released_at', '=', 0);
          },
          chunk.flatMap((id) => [id, draws.get(id) ?? 0]),
        );
        if (Number(drawn.numAffectedRows ?? 0) !== chunk.length)
          throw new ReservationMoved('a reservation was released while its settlement was being written');
      }
    },
    channels: async (sums: ReadonlyMap<number, Sums>) => {
      for (const ids of chunks(sorted(sums))) {
        await lock('channels', ids);
        await run(
          `move channels ${ids.length}`,
          (...laid) => {
            const rows = rowsOf(laid, 2);
            return trx
              .updateTable('channels')
              .set((eb) => ({ used_quota: eb('used_quota', '+', caseOf(dialect, pairs(rows, 1))) }))
              .where(
                'id',
                'in',
                rows.map((row) => row[0] as number),
              );
          },
          ids.flatMap((id) => [id, of(sums, id).used]),
        );
      }
    },
  };
};
