import type { AuditAction, AuditFilter, AuditObject, AuditRow } from '@sluice/contract/schemas/audit';
import type { Expression, ExpressionBuilder, Selectable, SqlBool } from 'kysely';
import { sqlNumber } from '../db/sql-number.js';
import type { AuditLogTable, Tables } from '../db/tables.js';
import { CSV_BOM, csvRecord } from '../lib/csv.js';
import { nowSeconds } from '../lib/time.js';
import { maskPair } from './audit-mask.js';
import { changedEntries, createAuditSnapshots } from './audit-snapshot.js';
import { countOf, pageOffset } from './paging.js';
import type { ServiceDeps } from './service-deps.js';

/** Who did it: the signed-in user (id 0 and the name typed for a failed sign-in of no known user). */
export interface AuditActor {
  readonly id: number;
  readonly username: string;
  readonly role: number;
}

/** One thing that happened, before its secrets are masked. */
export interface AuditEntry {
  readonly actor: AuditActor;
  readonly ip: string;
  readonly action: AuditAction;
  readonly object: AuditObject;
  readonly objectId: string;
  /** The fields before (null: there was no object), as read; masked when written. */
  readonly before?: unknown;
  /** The fields after (null: there is no object any more), as read; masked when written. */
  readonly after?: unknown;
  readonly detail?: string;
}

/** Rows one retention DELETE removes at most (no statement holds the write lock for long). */
const PURGE_BATCH_ROWS = 2000;
/** Rows read per query while exporting. */
const EXPORT_BATCH_ROWS = 1000;

export const AUDIT_CSV_HEADER = [
  'id',
  'time',
  'user_id',
  'username',
  'role',
  'ip',
  'action',
  'object_type',
  'object_id',
  'before',
  'after',
  'detail',
] as const;

const clip = (text: string, length: number): string => (text.length > length ? text.slice(0, length) : text);
const jsonOf = (value: unknown): string | null =>
  value === undefined || value === null ? null : JSON.stringify(value);

const toRecord = (row: Selectable<AuditLogTable>): AuditRow => ({
  id: sqlNumber(row.id),
  created_at: sqlNumber(row.created_at),
  user_id: sqlNumber(row.user_id),
  username: row.username,
  role: sqlNumber(row.role),
  ip: row.ip,
  action: row.action,
  object_type: row.object_type,
  object_id: row.object_id,
  before: row.before,
  after: row.after,
  detail: row.detail,
});

const conditions =
  (filter: AuditFilter) =>
  (eb: ExpressionBuilder<Tables, 'sluice_audit_log'>): Expression<SqlBool> => {
    const all: Expression<SqlBool>[] = [];
    if (filter.username) all.push(eb('username', '=', filter.username));
    if (filter.object_type) all.push(eb('object_type', '=', filter.object_type));
    if (filter.action) all.push(eb('action', '=', filter.action));
    if (filter.start_timestamp) all.push(eb('created_at', '>=', filter.start_timestamp));
    if (filter.end_timestamp) all.push(eb('created_at', '<=', filter.end_timestamp));
    return eb.and(all);
  };

const isoTime = (seconds: number): string => new Date(seconds * 1000).toISOString();

/**
 * The audit log: rows are added (secrets masked on the way in) and read; nothing edits them, and
 * only the retention job (AuditLogRetentionDays) deletes them.
 */
export const createAuditService = (deps: Pick<ServiceDeps, 'db' | 'options'>) => {
  const { db, options } = deps;
  const snapshots = createAuditSnapshots(db, options);

  const record = async (entry: AuditEntry): Promise<void> => {
    const narrowed = entry.object === 'option' ? changedEntries(entry.before, entry.after) : entry;
    const masked = maskPair(narrowed.before, narrowed.after);
    await db
      .insertInto('sluice_audit_log')
      .values({
        created_at: nowSeconds(),
        user_id: entry.actor.id,
        username: clip(entry.actor.username, 191),
        role: entry.actor.role,
        ip: clip(entry.ip, 64),
        action: entry.action,
        object_type: entry.object,
        object_id: clip(entry.objectId, 191),
        before: jsonOf(masked.before),
        after: jsonOf(masked.after),
        detail: clip(entry.detail ?? '', 1024),
      })
      .execute();
  };

  const list = async (filter: AuditFilter, page: number, size: number): Promise<AuditRow[]> => {
    const rows = await db
      .selectFrom('sluice_audit_log')
      .selectAll()
      .where(conditions(filter))
      .orderBy('id', 'desc')
      .limit(size)
      .offset(pageOffset(page, size))
      .execute();
    return rows.map(toRecord);
  };

  const count = async (filter: AuditFilter): Promise<number> =>
    countOf(
      await db
        .selectFrom('sluice_audit_log')
        .select((eb) => eb.fn.countAll().as('count'))
        .where(conditions(filter))
        .executeTakeFirst(),
    );

  /** The CSV of the filtered rows, newest first, read in batches by id (memory stays flat). */
  async function* exportCsv(filter: AuditFilter): AsyncGenerator<string, void, undefined> {
    yield CSV_BOM + csvRecord(AUDIT_CSV_HEADER);
    let below: number | undefined;
    for (;;) {
      let query = db.selectFrom('sluice_audit_log').selectAll().where(conditions(filter));
      if (below !== undefined) query = query.where('id', '<', below);
      const rows = (await query.orderBy('id', 'desc').limit(EXPORT_BATCH_ROWS).execute()).map(toRecord);
      if (rows.length === 0) return;
      yield rows
        .map((row) =>
          csvRecord([
            row.id,
            isoTime(row.created_at),
            row.user_id,
            row.username,
            row.role,
            row.ip,
            row.action,
            row.object_type,
            row.object_id,
            row.before ?? '',
            row.after ?? '',
            row.detail,
          ]),
        )
        .join('');
      if (rows.length < EXPORT_BATCH_ROWS) return;
      below = rows.at(-1)?.id;
    }
  }

  /** The retention job: rows older than AuditLogRetentionDays go, in batches; 0 days keeps every row. */
  const purgeExpired = async (now = nowSeconds()): Promise<number> => {
    const days = options.values.AuditLogRetentionDays;
    if (days <= 0) return 0;
    const cutoff = now - days * 86_400;
    let deleted = 0;
    for (;;) {
      const batch = await db
        .selectFrom('sluice_audit_log')
        .select('id')
        .where('created_at', '<', cutoff)
        .orderBy('id')
        .limit(PURGE_BATCH_ROWS)
        .execute();
      if (batch.length === 0) return deleted;
      const result = await db
        .deleteFrom('sluice_audit_log')
        .where(
          'id',
          'in',
          batch.map((row) => row.id),
        )
        .executeTakeFirst();
      deleted += sqlNumber(result.numDeletedRows);
      if (batch.length < PURGE_BATCH_ROWS) return deleted;
    }
  };

  return { record, list, count, exportCsv, purgeExpired, snapshots };
};

export type AuditService = ReturnType<typeof createAuditService>;
