import type { ColumnDefinition, TableDefinition } from './table-definitions.js';

const number = (name: string): ColumnDefinition => ({
  name,
  type: { kind: 'bigint' },
  notNull: true,
  defaultValue: 0,
});
const label = (name: string, length: number): ColumnDefinition => ({
  name,
  type: { kind: 'varchar', length },
  notNull: true,
  defaultValue: '',
});

/**
 * Sluice's own (0011): every alert webhook delivery, its status ('pending', 'delivered', 'failed'),
 * attempts, last answer code and error, and the body that was signed and sent.
 */
export const ALERT_DELIVERIES_TABLE: TableDefinition = {
  name: 'sluice_alert_deliveries',
  columns: [
    { name: 'id', type: { kind: 'id' } },
    number('created_at'),
    number('updated_at'),
    label('event', 32),
    label('object_id', 64),
    label('webhook', 64),
    label('url', 512),
    label('status', 16),
    number('attempts'),
    number('response_code'),
    label('last_error', 1024),
    { name: 'body', type: { kind: 'text' } },
  ],
  indexes: [
    { name: 'idx_sluice_alert_deliveries_created_at', columns: ['created_at'] },
    { name: 'idx_sluice_alert_deliveries_event', columns: ['event'] },
  ],
};
