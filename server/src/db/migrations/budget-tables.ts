import type { TableDefinition } from './table-definitions.js';

/**
 * Sluice's own (0012, `held` since 0015): what budgeted keys and users spent, per quarter hour
 * (`bucket`: its start in Unix seconds, a multiple of 900). `subject` is 'u' (a user) or 't' (a key).
 * `used` counts the estimates of requests in flight and the real cost of those answered (moved there
 * every second), `held` the room instances took for requests to come (their slices), so admission
 * checks `used + held` against every instance's exposure (relay/metering/budget-ledger.ts).
 */
export const BUDGET_USAGE_TABLE: TableDefinition = {
  name: 'sluice_budget_usage',
  columns: [
    { name: 'subject', type: { kind: 'varchar', length: 1 }, notNull: true },
    { name: 'subject_id', type: { kind: 'int' }, notNull: true },
    { name: 'bucket', type: { kind: 'bigint' }, notNull: true },
    { name: 'used', type: { kind: 'bigint' }, notNull: true, defaultValue: 0 },
    // 0015: what the relay's instances hold of the window's room, not yet spent.
    { name: 'held', type: { kind: 'bigint' }, notNull: true, defaultValue: 0 },
  ],
  primaryKey: ['subject', 'subject_id', 'bucket'],
  indexes: [{ name: 'idx_sluice_budget_usage_bucket', columns: ['bucket'] }],
};
