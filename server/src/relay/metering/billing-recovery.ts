/**
 * After a crash: the journal of a dead instance on this host is replayed (what its answered
 * requests owe, written once), and every reservation held by an instance whose lease is gone is
 * given back. Runs at start and then every so often, on every instance; each step is safe to run
 * twice or on two instances at once (journal ranges, conditional row updates, file renames).
 */
import { renameSync, statSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { isDatabaseUnavailable } from '../../db/database-unavailable.js';
import type { Dialect } from '../../db/dsn.js';
import type { Tables } from '../../db/tables.js';
import { nowSeconds } from '../../lib/time.js';
import {
  journalSegments,
  processStartedAt,
  readSegment,
  type JournalOwner,
  type JournalSegment,
} from './billing-journal.js';
import { releaseReservation } from './reservation-rows.js';
import { atReservation } from './settlement-batch.js';
import { forgetWritten } from './settled-ranges.js';
import { writeLogRows, writeSettlements, type Journaled } from './settlement-write.js';

export interface RecoveryDeps {
  readonly db: Kysely<Tables>;
  readonly logDb: Kysely<Tables>;
  readonly dialect: Dialect;
  /** The journal directory (undefined: journals in memory, nothing to replay). */
  readonly journalDir: string | undefined;
  /** This instance: its own journal is never replayed. */
  readonly self: JournalOwner;
  readonly logger: Logger;
}

export interface RecoveryReport {
  /** Journal entries written by the replay (not written before the crash). */
  replayed: number;
  /** Journal entries found already written. */
  alreadyWritten: number;
  /** Reservations given back, and the quota they held. */
  released: number;
  releasedQuota: number;
}

const REPLAY_CHUNK = 200;
/** Tombstones of released reservations and old journal ranges are kept this long, then purged. */
const KEEP_SECONDS = 7 * 24 * 3600;
/** A claimed journal older than this was left by a recovery that died: claimed again. */
const STALE_CLAIM_MS = 5 * 60_000;
const CLAIMED = '.recovering';

const pidAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

export const createBillingRecovery = (deps: RecoveryDeps) => {
  const { db, logDb, dialect, logger, self } = deps;
  const sameDatabase = db === logDb;

  const leaseGone = async (instanceId: string): Promise<boolean> => {
    const row = await db
      .selectFrom('sluice_instances')
      .select('lease_until')
      .where('id', '=', instanceId)
      .executeTakeFirst();
    return !row || Number(row.lease_until) < Date.now();
  };

  /** Whether the process that wrote a journal is gone (on this host the process table tells). */
  const ownerDead = async (owner: JournalOwner): Promise<boolean> => {
    if (owner.host === hostname()) {
      if (owner.pid === process.pid) {
        if (owner.startedAt < processStartedAt()) return true; // an earlier process with this pid
      } else if (!pidAlive(owner.pid)) return true;
    }
    return leaseGone(owner.instanceId);
  };

  /** Writes journal entries once each; one the database refuses even at its reservation is logged and dropped. */
  const replay = async (instanceId: string, entries: readonly Journaled[]): Promise<number> => {
    const scope = { dialect, instanceId, logsHere: sameDatabase, checkWritten: true };
    let written = 0;
    const commit = async (chunk: readonly Journaled[]) => {
      const result = await db.transaction().execute((trx) => writeSettlements(trx, chunk, scope));
      if (!sameDatabase && result.rows.length > 0)
        await logDb.transaction().execute((trx) => writeLogRows(trx, result.rows));
      written += result.written;
    };
    for (let start = 0; start < entries.length; start += REPLAY_CHUNK) {
      const chunk = entries.slice(start, start + REPLAY_CHUNK);
      try {
        await commit(chunk);
      } catch (error) {
        if (isDatabaseUnavailable(error)) throw error;
        for (const entry of chunk)
          try {
            await commit([entry]).catch(async (failure: unknown) => {
              if (isDatabaseUnavailable(failure)) throw failure;
              await commit([atReservation(entry)]);
            });
          } catch (failure) {
            if (isDatabaseUnavailable(failure)) throw failure;
            logger.error(
              { err: failure, seq: entry.seq, instanceId },
              'a journaled settlement was refused: dropped',
            );
          }
      }
    }
    return written;
  };

  /** Gives back every reservation still held by instances for which `select` picks rows. */
  const releaseHeld = async (
    pick: () => Promise<
      { id: string; user_id: number; token_id: number; unlimited: boolean | number; quota: number }[]
    >,
  ) => {
    let released = 0;
    let quota = 0;
    for (;;) {
      const rows = await pick();
      if (rows.length === 0) break;
      for (const row of rows) {
        const given = await db.transaction().execute((trx) => releaseReservation(trx, row));
        if (given !== undefined) {
          released += 1;
          quota += given;
        }
      }
    }
    return { released, quota };
  };

  const heldOf = (instanceId: string) => () =>
    db
      .selectFrom('sluice_reservations')
      .select(['id', 'user_id', 'token_id', 'unlimited', 'quota'])
      .where('instance_id', '=', instanceId)
      .where('released_at', '=', 0)
      .limit(500)
      .execute();

  /** Claims a segment (an atomic rename): the path to read, or undefined when another took it. */
  const claim = (segment: JournalSegment): string | undefined => {
    const claimed = segment.path.endsWith(CLAIMED) ? segment.path : segment.path + CLAIMED;
    try {
      renameSync(segment.path, claimed);
      return claimed;
    } catch {
      return undefined;
    }
  };

  /** Replays the journals of dead instances of this host, then frees what they still held. */
  const recoverJournals = async (report: RecoveryReport): Promise<void> => {
    if (deps.journalDir === undefined) return;
    const byInstance = new Map<string, JournalSegment[]>();
    for (const segment of journalSegments(deps.journalDir)) {
      if (segment.instanceId === self.instanceId) continue;
      if (segment.path.endsWith(CLAIMED) && Date.now() - statSync(segment.path).mtimeMs < STALE_CLAIM_MS)
        continue;
      byInstance.set(segment.instanceId, [...(byInstance.get(segment.instanceId) ?? []), segment]);
    }
    for (const [instanceId, segments] of byInstance) {
      const first = segments[0]?.path ?? '';
      const owner = readSegment(first).owner;
      // No header yet: a journal being created this instant, unless it is old.
      if (owner ? !(await ownerDead(owner)) : Date.now() - statSync(first).mtimeMs < STALE_CLAIM_MS) continue;
      const paths = segments.flatMap((segment) => claim(segment) ?? []);
      const entries = paths
        .flatMap((path) => readSegment(path).entries)
        .sort((left, right) => left.seq - right.seq);
      const written = await replay(instanceId, entries);
      report.replayed += written;
      report.alreadyWritten += entries.length - written;
      const freed = await releaseHeld(heldOf(instanceId));
      report.released += freed.released;
      report.releasedQuota += freed.quota;
      // Dead and replayed: no settlement of it can come any more, so no tombstone is needed.
      await db.deleteFrom('sluice_reservations').where('instance_id', '=', instanceId).execute();
      await forgetWritten(db, instanceId);
      await db.deleteFrom('sluice_instances').where('id', '=', instanceId).execute();
      for (const path of paths) unlinkSync(path);
    }
  };

  /** Gives back the reservations of instances whose lease is gone (of any host), and purges old rows. */
  const sweep = async (report: RecoveryReport): Promise<void> => {
    const now = Date.now();
    const freed = await releaseHeld(() =>
      db
        .selectFrom('sluice_reservations as r')
        .leftJoin('sluice_instances as i', 'i.id', 'r.instance_id')
        .select(['r.id', 'r.user_id', 'r.token_id', 'r.unlimited', 'r.quota'])
        .where('r.released_at', '=', 0)
        .where((eb) => eb.or([eb('i.id', 'is', null), eb('i.lease_until', '<', now)]))
        .limit(500)
        .execute(),
    );
    report.released += freed.released;
    report.releasedQuota += freed.quota;
    await db.deleteFrom('sluice_instances').where('lease_until', '<', now).execute();
    const old = nowSeconds() - KEEP_SECONDS;
    await db
      .deleteFrom('sluice_reservations')
      .where('released_at', '>', 0)
      .where('released_at', '<', old)
      .execute();
    await db.deleteFrom('sluice_settled').where('created_at', '<', old).execute();
  };

  /** One pass: this host's dead journals, then every dead lease. Logged when it found anything. */
  const run = async (): Promise<RecoveryReport> => {
    const report: RecoveryReport = { replayed: 0, alreadyWritten: 0, released: 0, releasedQuota: 0 };
    await recoverJournals(report);
    await sweep(report);
    if (report.replayed + report.alreadyWritten + report.released > 0)
      logger.warn(
        report,
        'billing recovered after a crash: journaled settlements written, reservations given back',
      );
    return report;
  };
  return { run };
};
