import type { AlertDelivery, AlertDeliveryQuery } from '@sluice/contract/schemas/alerts';
import type { Expression, ExpressionBuilder, Kysely, Selectable, SqlBool } from 'kysely';
import type { Dialect } from '../db/dsn.js';
import { executeInsertId } from '../db/insert-id.js';
import { sqlNumber } from '../db/sql-number.js';
import type { AlertDeliveriesTable, Tables } from '../db/tables.js';
import { nowSeconds } from '../lib/time.js';
import { countOf, pageOffset } from './paging.js';

/** A delivery about to be made: which event, about what, to which webhook, with which body. */
export interface NewDelivery {
  readonly event: string;
  readonly objectId: string;
  readonly webhook: string;
  readonly url: string;
  readonly body: string;
}

/** How one attempt went. */
export interface AttemptOutcome {
  readonly status: 'pending' | 'delivered' | 'failed';
  readonly attempts: number;
  readonly responseCode: number;
  readonly error: string;
}

const clip = (text: string, length: number): string => (text.length > length ? text.slice(0, length) : text);

const toRecord = (row: Selectable<AlertDeliveriesTable>): AlertDelivery => ({
  id: sqlNumber(row.id),
  created_at: sqlNumber(row.created_at),
  updated_at: sqlNumber(row.updated_at),
  event: row.event,
  object_id: row.object_id,
  webhook: row.webhook,
  url: row.url,
  status: row.status,
  attempts: sqlNumber(row.attempts),
  response_code: sqlNumber(row.response_code),
  last_error: row.last_error,
  body: row.body ?? '',
});

type Filter = Pick<AlertDeliveryQuery, 'event' | 'status' | 'webhook'>;

const conditions =
  (filter: Filter) =>
  (eb: ExpressionBuilder<Tables, 'sluice_alert_deliveries'>): Expression<SqlBool> => {
    const all: Expression<SqlBool>[] = [];
    if (filter.event) all.push(eb('event', '=', filter.event));
    if (filter.status) all.push(eb('status', '=', filter.status));
    if (filter.webhook) all.push(eb('webhook', '=', filter.webhook));
    return eb.and(all);
  };

/** The delivery log (sluice_alert_deliveries): a row per delivery, updated after each attempt. */
export const createAlertDeliveries = (db: Kysely<Tables>, dialect: Dialect) => ({
  start: (delivery: NewDelivery): Promise<number> => {
    const now = nowSeconds();
    return executeInsertId(
      dialect,
      db.insertInto('sluice_alert_deliveries').values({
        created_at: now,
        updated_at: now,
        event: clip(delivery.event, 32),
        object_id: clip(delivery.objectId, 64),
        webhook: clip(delivery.webhook, 64),
        url: clip(delivery.url, 512),
        status: 'pending',
        attempts: 0,
        response_code: 0,
        last_error: '',
        body: delivery.body,
      }),
    );
  },
  record: async (id: number, outcome: AttemptOutcome): Promise<void> => {
    await db
      .updateTable('sluice_alert_deliveries')
      .set({
        updated_at: nowSeconds(),
        status: outcome.status,
        attempts: outcome.attempts,
        response_code: outcome.responseCode,
        last_error: clip(outcome.error, 1024),
      })
      .where('id', '=', id)
      .execute();
  },
  get: async (id: number): Promise<AlertDelivery | undefined> => {
    const row = await db
      .selectFrom('sluice_alert_deliveries')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  },
  /** Removes the rows created before `cutoff` (Unix seconds). */
  purgeBefore: async (cutoff: number): Promise<void> => {
    await db.deleteFrom('sluice_alert_deliveries').where('created_at', '<', cutoff).execute();
  },
  /** The newest first, a page at a time. */
  list: async (filter: Filter, page: number, size: number): Promise<AlertDelivery[]> =>
    (
      await db
        .selectFrom('sluice_alert_deliveries')
        .selectAll()
        .where(conditions(filter))
        .orderBy('id', 'desc')
        .limit(size)
        .offset(pageOffset(page, size))
        .execute()
    ).map(toRecord),
  count: async (filter: Filter): Promise<number> =>
    countOf(
      await db
        .selectFrom('sluice_alert_deliveries')
        .select((eb) => eb.fn.countAll().as('count'))
        .where(conditions(filter))
        .executeTakeFirst(),
    ),
});

export type AlertDeliveries = ReturnType<typeof createAlertDeliveries>;
