import { LOG_TYPE } from '@sluice/contract/statuses';
import type { Insertable } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogsTable } from '../../db/tables.js';
import { startTestSluice, type TestSluice } from '../../test-support/test-sluice.js';
import { testDialects } from '../../test-support/test-databases.js';
import { logInsert } from './settlement-write.js';

const row = (index: number): Insertable<LogsTable> => ({
  user_id: index,
  username: `user-${index}`,
  created_at: 1_700_000_000 + index,
  type: LOG_TYPE.consume,
  content: `model ratio ${index}`,
  token_name: `key-${index}`,
  model_name: 'gpt-4o',
  quota: 100 * index,
  prompt_tokens: index,
  completion_tokens: 2 * index,
  channel_id: 7,
  request_id: `req-${index}`,
  elapsed_time: 12,
  is_stream: index % 2 === 0,
  system_prompt_reset: false,
});

describe.each(testDialects())('the reused log INSERT on %s', (dialect) => {
  let test: TestSluice;
  beforeAll(async () => {
    test = await startTestSluice(dialect);
  });
  afterAll(async () => {
    await test?.close();
  });

  it('is exactly what Kysely compiles for the same rows, the first time and when reused', async () => {
    const db = test.sluice.database.db;
    for (const rows of [[row(1), row(2), row(3)], [row(4), row(5), row(6)], [row(9)]]) {
      const reused = logInsert(db, rows);
      const fresh = db.insertInto('logs').values(rows).compile();
      expect(reused.sql).toBe(fresh.sql);
      expect(reused.parameters).toEqual(fresh.parameters);
    }
    await db.transaction().execute(async (trx) => {
      await trx.executeQuery(logInsert(trx, [row(11), row(12)]));
    });
    const written = await db
      .selectFrom('logs')
      .select(['username', 'quota', 'is_stream'])
      .where('request_id', 'in', ['req-11', 'req-12'])
      .orderBy('quota')
      .execute();
    expect(written.map((entry) => [entry.username, entry.quota, Boolean(entry.is_stream)])).toEqual([
      ['user-11', 1100, false],
      ['user-12', 1200, true],
    ]);
  });
});
