import type { ColumnDefinition, TableDefinition } from './table-definitions.js';

/** Sluice's own tables of account security (migrations 0008 and later on the main database). */

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
const json = (name: string): ColumnDefinition => ({ name, type: { kind: 'text' } });

/** Who changed what through /api, and every sign-in (0008). Rows are only ever added, or aged out. */
export const AUDIT_LOG_TABLE: TableDefinition = {
  name: 'sluice_audit_log',
  columns: [
    { name: 'id', type: { kind: 'id' } },
    number('created_at'),
    number('user_id'),
    label('username', 191),
    number('role'),
    label('ip', 64),
    label('action', 32),
    label('object_type', 32),
    label('object_id', 191),
    json('before'),
    json('after'),
    label('detail', 1024),
  ],
  indexes: [
    { name: 'idx_sluice_audit_log_created_at', columns: ['created_at'] },
    { name: 'idx_sluice_audit_log_username', columns: ['username'] },
    { name: 'idx_sluice_audit_log_object_type_action', columns: ['object_type', 'action'] },
  ],
};

/** A user's TOTP secret, its replay guard and its lock (0009). */
export const TOTP_TABLE: TableDefinition = {
  name: 'sluice_totp',
  columns: [
    { name: 'user_id', type: { kind: 'int' }, notNull: true },
    label('secret', 128),
    number('confirmed_at'),
    number('last_step'),
    number('failures'),
    number('locked_until'),
  ],
  primaryKey: ['user_id'],
  indexes: [],
};

/** Single-use recovery codes, hashed (0009): a used code's row is deleted. */
export const RECOVERY_CODES_TABLE: TableDefinition = {
  name: 'sluice_recovery_codes',
  columns: [
    { name: 'user_id', type: { kind: 'int' }, notNull: true },
    { name: 'code_hash', type: { kind: 'varchar', length: 64 }, notNull: true },
  ],
  primaryKey: ['user_id', 'code_hash'],
  indexes: [],
};

/** WebAuthn credentials (0010): found by their credential id at sign-in, listed by their user. */
export const PASSKEYS_TABLE: TableDefinition = {
  name: 'sluice_passkeys',
  columns: [
    { name: 'id', type: { kind: 'id' } },
    number('user_id'),
    label('credential_id', 255),
    label('name', 64),
    json('public_key'),
    number('counter'),
    label('transports', 255),
    number('backed_up'),
    number('created_at'),
    number('last_used_at'),
  ],
  indexes: [
    { name: 'idx_sluice_passkeys_credential_id', columns: ['credential_id'], unique: true },
    { name: 'idx_sluice_passkeys_user_id', columns: ['user_id'] },
  ],
};
