/**
 * What makes billing survive a crash, opened at start: this instance's lease, its journal, and a
 * first recovery pass (a previous process's journal replayed, dead instances' reservations freed)
 * before the instance takes any request.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { fileJournal, memoryJournal, thisOwner, type BillingJournal } from './billing-journal.js';
import { createBillingRecovery, type RecoveryDeps } from './billing-recovery.js';
import { createInstanceLease, DEFAULT_LEASE, type LeaseTiming } from './instance-lease.js';
import { forgetWritten } from './settled-ranges.js';

/** What recovery needs (this instance aside), and the lease's timing. */
export interface DurabilityDeps extends Omit<RecoveryDeps, 'self'> {
  readonly lease?: LeaseTiming;
}

export interface BillingDurability {
  readonly journal: BillingJournal;
  /** A recovery pass (every instance runs one every few seconds), and old journal ranges forgotten. */
  recover(): Promise<void>;
  /** After the last settlement: the journal closed, the lease ended (its row removed when nothing waits). */
  close(): Promise<void>;
}

export const openBillingDurability = async (deps: DurabilityDeps): Promise<BillingDurability> => {
  const owner = thisOwner(randomUUID());
  const lease = createInstanceLease(deps.db, owner, deps.logger, deps.lease ?? DEFAULT_LEASE);
  await lease.register();
  let journal: BillingJournal;
  if (deps.journalDir === undefined) journal = memoryJournal(owner.instanceId);
  else {
    try {
      mkdirSync(deps.journalDir, { recursive: true });
      const logger = deps.logger;
      journal = fileJournal(deps.journalDir, owner, undefined, (error) =>
        logger.error(
          { err: error },
          'the billing journal could not be written: settlements of answered requests will be billed, but not after a crash',
        ),
      );
    } catch (error) {
      await lease.end(true);
      throw new Error(
        `the billing journal cannot be written in ${deps.journalDir} (set BILLING_JOURNAL_DIR to a writable folder, or to off)`,
        { cause: error },
      );
    }
  }
  const recovery = createBillingRecovery({ ...deps, self: owner });
  try {
    await recovery.run();
  } catch (error) {
    journal.close();
    await lease.end(true);
    throw error;
  }
  lease.start();
  return {
    journal,
    recover: async () => {
      await recovery.run();
      await forgetWritten(deps.db, owner.instanceId, journal.oldestKept());
    },
    close: async () => {
      const waiting = journal.pending();
      journal.close();
      if (waiting === 0) await forgetWritten(deps.db, owner.instanceId);
      await lease.end(waiting === 0);
    },
  };
};
