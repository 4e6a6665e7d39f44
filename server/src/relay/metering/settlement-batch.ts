import type { Insertable, Kysely } from 'kysely';
import { isDatabaseUnavailable } from '../../db/database-unavailable.js';
import type { Dialect } from '../../db/dsn.js';
import type { LogsTable, Tables } from '../../db/tables.js';
import type { BillingJournal } from './billing-journal.js';
import { writeLogRows, writeSettlements, type Journaled, type Settlement } from './settlement-write.js';

/**
 * A settlement the database refused on its own: charged at its reservation instead (no balance
 * move, since the reservation is already taken), with a log row that says so.
 */
export const atReservation = (entry: Journaled): Journaled => {
  const { settlement } = entry;
  return {
    ...entry,
    settlement: {
      ...settlement,
      quota: settlement.preQuota,
      log: settlement.log && {
        ...settlement.log,
        content: `${settlement.log.content}; the real cost (${settlement.quota}) could not be written: settled at the reservation`,
      },
    },
  };
};

/** Settlements that could not be written at all (the database unreachable): said with their amounts. */
export class SettlementsNotWritten extends Error {
  constructor(
    readonly settlements: readonly {
      userId: number;
      tokenId: number;
      channelId: number;
      reserved: number;
      cost: number;
      requestId: string;
    }[],
    cause: unknown,
  ) {
    super(
      `${settlements.length} settlements could not be written; they stay in the billing journal for the next start`,
      { cause },
    );
  }
}

const summaryOf = ({ settlement }: Journaled) => ({
  userId: settlement.payer.userId,
  tokenId: settlement.payer.tokenId,
  channelId: settlement.channelId,
  reserved: settlement.preQuota,
  cost: settlement.quota,
  requestId: settlement.log?.requestId ?? '',
});

/** How long a write waits before it tries a database that was away again: 100 ms doubling to 5 s. */
const retryDelayMs = (attempt: number): number => Math.min(100 * 2 ** attempt, 5000);
/** After `stop` (shutdown), how long writes still wait for a database that is away. */
const STOP_GRACE_MS = 5_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface SettlementBatcher {
  (settlement: Settlement): Promise<void>;
  /** Settlements gathered or being written, not yet committed (the backlog admission bounds). */
  backlog(): number;
  /** Shutdown: writes still wait for a database that is away for STOP_GRACE_MS, then give up. */
  stop(): void;
}

export interface BatcherOptions {
  readonly db: Kysely<Tables>;
  readonly logDb: Kysely<Tables>;
  readonly dialect: Dialect;
  /** Each settlement is appended here before it is queued, and told written once it is. */
  readonly journal: BillingJournal;
  readonly windowMs: number;
  readonly committed: (userMoves: ReadonlyMap<number, number>) => void;
  /** Told of each settlement as it is committed (`written`) or given up (it stays in the journal). */
  readonly settled?: (settlement: Settlement, written: boolean) => void;
  /** Told, for each settlement committed, the seconds from its answer's end to its commit. */
  readonly lag?: ((seconds: number) => void) | undefined;
}

/**
 * Gathers the settlements of a short window (`windowMs`) and writes them together: a transaction per
 * batch instead of one per request. Every settlement of a batch gets the batch's one promise, which
 * settles when the batch is committed; `committed` is told how much each user's quota moved.
 *
 * When the database cannot be reached, a batch is kept and written again (100 ms, doubling to 5 s)
 * until it can: answered requests are billed late, never dropped, while the process lives (the
 * backlog is bounded by admission: see `backlog`). When the batch's transaction fails otherwise,
 * nothing of it was written (it rolled back), and each settlement is written again alone, so that
 * one the database refuses (a cost out of its range, say) does not take the others' billing with it.
 * One refused alone is charged at its reservation with a log row that says so: the reservation is
 * money already taken, and every unit taken has a log row. One refused even so, or still unwritten
 * when a stopping process gives up, stays in the billing journal (the next start replays it; its
 * reservation stays taken meanwhile): the batch's promise rejects with SettlementsNotWritten, which
 * names them and their amounts for the log.
 *
 * A try that met an unavailable database may have committed all the same (the connection broke
 * during COMMIT): the next try skips what the journal ranges (`sluice_settled`) say is written.
 */
export const createSettlementBatcher = (options: BatcherOptions): SettlementBatcher => {
  const { db, logDb, dialect, journal, windowMs, committed } = options;
  const settled = options.settled ?? (() => undefined);
  /** Each committed settlement's lag: from its queueing to now. */
  const measured = (entries: readonly Journaled[]) => {
    const lag = options.lag;
    if (!lag) return;
    const now = performance.now();
    for (const { queuedAt } of entries) if (queuedAt !== undefined) lag((now - queuedAt) / 1000);
  };
  const sameDatabase = db === logDb;
  const scope = { dialect, instanceId: journal.instanceId, logsHere: sameDatabase };
  let queue: Journaled[] = [];
  let batch: Promise<void> | undefined;
  let chain: Promise<void> = Promise.resolve();
  let writing = 0;
  let giveUpAt = Infinity;

  /**
   * One transaction. After a try that met an unavailable database, its COMMIT may have committed:
   * what the journal ranges say is written is skipped.
   */
  const commit = async (
    entries: readonly Journaled[],
    checkWritten: boolean,
  ): Promise<Insertable<LogsTable>[]> => {
    const { rows, userMoves } = await db
      .transaction()
      .execute((trx) => writeSettlements(trx, entries, { ...scope, checkWritten }));
    committed(userMoves);
    journal.written(entries.map((entry) => entry.seq));
    measured(entries);
    return rows;
  };

  /** One settlement alone; refused for its own sake, at its reservation. The database away: thrown. */
  const commitAlone = async (entry: Journaled, checkWritten: boolean): Promise<Insertable<LogsTable>[]> => {
    try {
      return await commit([entry], checkWritten);
    } catch (error) {
      if (isDatabaseUnavailable(error)) throw error;
      return commit([atReservation(entry)], checkWritten);
    }
  };

  /** One try: the log rows written, the settlements to try again (database away), those refused. */
  const writeOnce = async (entries: readonly Journaled[], checkWritten: boolean) => {
    try {
      const rows = await commit(entries, checkWritten);
      for (const entry of entries) settled(entry.settlement, true);
      return { rows, away: [], refused: [], error: undefined };
    } catch (batchError) {
      if (isDatabaseUnavailable(batchError))
        return { rows: [], away: entries, refused: [], error: batchError };
      const rows: Insertable<LogsTable>[] = [];
      const away: Journaled[] = [];
      const refused: Journaled[] = [];
      let error: unknown;
      for (const entry of entries)
        try {
          rows.push(...(await commitAlone(entry, checkWritten)));
          settled(entry.settlement, true);
        } catch (failure) {
          const unavailable = isDatabaseUnavailable(failure);
          (unavailable ? away : refused).push(entry);
          checkWritten ||= unavailable;
          error = failure;
        }
      return { rows, away, refused, error };
    }
  };

  /** Runs `work` until the database answers it (or a stopping process gives up). */
  const untilWritten = async (work: () => Promise<void>): Promise<void> => {
    for (let attempt = 0; ; attempt += 1)
      try {
        return await work();
      } catch (error) {
        if (!isDatabaseUnavailable(error) || Date.now() > giveUpAt) throw error;
        await sleep(retryDelayMs(attempt));
      }
  };

  const write = async (settlements: readonly Journaled[]): Promise<void> => {
    const rows: Insertable<LogsTable>[] = [];
    const refused: Journaled[] = [];
    let pending: readonly Journaled[] = settlements;
    let cause: unknown;
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      if (attempt > 0) {
        if (Date.now() > giveUpAt) break;
        await sleep(retryDelayMs(attempt - 1));
      }
      const result = await writeOnce(pending, attempt > 0);
      rows.push(...result.rows);
      refused.push(...result.refused);
      pending = result.away;
      cause = result.error ?? cause;
    }
    // Not written: still in the journal, the next start replays them.
    const lost = [...refused, ...pending];
    for (const entry of lost) settled(entry.settlement, false);
    // A separate log database: the balances are committed; their rows are written until it answers,
    // in one transaction, so that a try broken half-way leaves no rows to write twice.
    if (!sameDatabase && rows.length > 0)
      await untilWritten(() => logDb.transaction().execute((trx) => writeLogRows(trx, rows)));
    if (lost.length > 0) throw new SettlementsNotWritten(lost.map(summaryOf), cause);
  };

  const settle = (settlement: Settlement): Promise<void> => {
    const seq = journal.append(settlement);
    queue.push({ seq, settlement, queuedAt: performance.now() });
    batch ??= new Promise<void>((resolve, reject) => {
      setTimeout(() => {
        const settlements = queue;
        queue = [];
        batch = undefined;
        writing += settlements.length;
        // Batches are written one after another; a failed one does not stop the next.
        chain = chain
          .then(() => write(settlements))
          .finally(() => {
            writing -= settlements.length;
          })
          .then(resolve, reject);
      }, windowMs);
    });
    return batch;
  };
  return Object.assign(settle, {
    backlog: () => queue.length + writing,
    stop: () => {
      giveUpAt = Math.min(giveUpAt, Date.now() + STOP_GRACE_MS);
    },
  });
};
