import { sql, type InsertQueryBuilder, type InsertResult } from 'kysely';
import type { Dialect } from './dsn.js';

/**
 * Runs an insert and answers the new row's id: through RETURNING on PostgreSQL, through the
 * driver's insert id (a bigint) on SQLite and MySQL, where MySQL has no RETURNING.
 */
export const executeInsertId = async <DB, TB extends keyof DB>(
  dialect: Dialect,
  query: InsertQueryBuilder<DB, TB, InsertResult>,
): Promise<number> => {
  if (dialect === 'postgres') {
    const row: Record<string, unknown> = await query
      .returning(sql<number>`id`.as('id'))
      .executeTakeFirstOrThrow();
    return Number(row['id']);
  }
  const result = await query.executeTakeFirstOrThrow();
  if (result.insertId === undefined) throw new Error('the database returned no insert id');
  return Number(result.insertId);
};
