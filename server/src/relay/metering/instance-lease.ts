/**
 * This instance's row in `sluice_instances`, its lease renewed while it lives: past the lease, any
 * instance takes it for dead and gives its reservations back (billing-recovery.ts).
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Tables } from '../../db/tables.js';
import type { JournalOwner } from './billing-journal.js';

export interface LeaseTiming {
  /** How long a renewal holds: an instance silent for longer is taken for dead. */
  readonly leaseMs: number;
  /** How often the lease is renewed. */
  readonly renewMs: number;
}

/** Renewed every 5 s for 30 s: a database away for longer than that lets the reservations go. */
export const DEFAULT_LEASE: LeaseTiming = { leaseMs: 30_000, renewMs: 5_000 };

export interface InstanceLease {
  /** Writes the row (before the instance holds anything). */
  register(): Promise<void>;
  /** Starts the renewals (a timer that does not keep the process alive). */
  start(): void;
  /** Stops them and removes the row (a clean stop: nothing of this instance is held). */
  end(remove: boolean): Promise<void>;
}

export const createInstanceLease = (
  db: Kysely<Tables>,
  owner: JournalOwner,
  logger: Logger,
  timing: LeaseTiming = DEFAULT_LEASE,
): InstanceLease => {
  let timer: NodeJS.Timeout | undefined;
  let warnedAt = -Infinity;
  const register = async () => {
    await db
      .insertInto('sluice_instances')
      .values({
        id: owner.instanceId,
        host: owner.host,
        pid: owner.pid,
        started_at: owner.startedAt,
        lease_until: Date.now() + timing.leaseMs,
      })
      .execute();
  };
  const renew = async () => {
    const renewed = await db
      .updateTable('sluice_instances')
      .set({ lease_until: Date.now() + timing.leaseMs })
      .where('id', '=', owner.instanceId)
      .executeTakeFirst();
    // Taken for dead while stalled (its reservations were given back: its settlements charge in full).
    if (Number(renewed.numUpdatedRows) === 0) await register();
  };
  return {
    register,
    start: () => {
      timer = setInterval(() => {
        renew().catch((error: unknown) => {
          if (performance.now() - warnedAt < 60_000) return;
          warnedAt = performance.now();
          logger.warn({ err: error }, 'the instance lease could not be renewed');
        });
      }, timing.renewMs);
      timer.unref();
    },
    end: async (remove) => {
      clearInterval(timer);
      if (remove) await db.deleteFrom('sluice_instances').where('id', '=', owner.instanceId).execute();
    },
  };
};
