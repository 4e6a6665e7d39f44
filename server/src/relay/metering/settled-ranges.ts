/**
 * Which journal entries of an instance are written, as ranges of sequence numbers, in the same
 * transaction as the settlements: a retry after a COMMIT whose outcome was unknown, or the replay of
 * a killed process's journal, writes none of them twice.
 */
import type { Kysely, Transaction } from 'kysely';
import { templated } from '../../db/query-template.js';
import type { Tables } from '../../db/tables.js';
import { nowSeconds } from '../../lib/time.js';

type Db = Kysely<Tables> | Transaction<Tables>;

/** Consecutive sequence numbers as [from, to] ranges. */
export const rangesOf = (seqs: readonly number[]): [number, number][] => {
  const sorted = [...seqs].sort((left, right) => left - right);
  const ranges: [number, number][] = [];
  for (const seq of sorted) {
    const last = ranges[ranges.length - 1];
    if (last && seq === last[1] + 1) last[1] = seq;
    else if (!last || seq > last[1]) ranges.push([seq, seq]);
  }
  return ranges;
};

export const markWritten = async (db: Db, instanceId: string, seqs: readonly number[]): Promise<void> => {
  const ranges = rangesOf(seqs);
  if (ranges.length === 0) return;
  const values = ranges.flatMap(([from, to]) => [from, to]);
  await db.executeQuery(
    templated(
      db,
      `settled ranges ${ranges.length}`,
      (instance, createdAt, ...laid) =>
        db.insertInto('sluice_settled').values(
          ranges.map((_, index) => ({
            instance_id: String(instance),
            seq_from: Number(laid[2 * index]),
            seq_to: Number(laid[2 * index + 1]),
            created_at: Number(createdAt),
          })),
        ),
      [instanceId, nowSeconds(), ...values],
    ),
  );
};

/** Of these sequence numbers, those already written. */
export const alreadyWritten = async (
  db: Db,
  instanceId: string,
  seqs: readonly number[],
): Promise<Set<number>> => {
  const done = new Set<number>();
  if (seqs.length === 0) return done;
  const low = seqs.reduce((min, seq) => Math.min(min, seq));
  const high = seqs.reduce((max, seq) => Math.max(max, seq));
  const ranges = await db
    .selectFrom('sluice_settled')
    .select(['seq_from', 'seq_to'])
    .where('instance_id', '=', instanceId)
    .where('seq_to', '>=', low)
    .where('seq_from', '<=', high)
    .execute();
  for (const seq of seqs)
    if (ranges.some((range) => Number(range.seq_from) <= seq && seq <= Number(range.seq_to))) done.add(seq);
  return done;
};

/** Forgets an instance's ranges below `below` (their journal segments are gone). */
export const forgetWritten = (db: Db, instanceId: string, below = Number.MAX_SAFE_INTEGER) =>
  db.deleteFrom('sluice_settled').where('instance_id', '=', instanceId).where('seq_to', '<', below).execute();
