import { LOG_TYPE } from '@sluice/contract/statuses';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { insertLogs, signInRoot } from '../test-support/log-fixtures.js';
import { testDialects } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';
import type { ApiClient } from '../test-support/api-client.js';
import { CLEANUP_BATCH_ROWS, deleteLogsBefore } from './log-cleanup.js';

/**
 * created_at of the i-th row: ids ascend with time, but not strictly (a settlement is written after
 * a later request's, an import keeps old times): every 5th row is much older than its neighbours.
 */
const createdAt = (index: number) => (index % 5 === 4 ? 10 + index : 1000 + index);

describe.each(testDialects())('log cleanup in batches on %s', (dialect) => {
  let test: TestSluice;
  let root: ApiClient;

  const fill = async (count: number) => {
    await test.sluice.services.deps.logDb.deleteFrom('logs').execute();
    const rows = Array.from({ length: count }, (_, index) => ({
      user_id: 1 + (index % 3),
      created_at: createdAt(index),
      type: index % 2 ? LOG_TYPE.consume : LOG_TYPE.system,
      content: `row ${index}`,
    }));
    for (let start = 0; start < rows.length; start += 500)
      await insertLogs(test.sluice.services.deps.logDb, rows.slice(start, start + 500));
    return rows;
  };

  const remaining = async () =>
    (
      await test.sluice.services.deps.logDb
        .selectFrom('logs')
        .select(['created_at', 'content'])
        .orderBy('id')
        .execute()
    ).map((row) => ({ created_at: Number(row.created_at), content: row.content }));

  const expectedAfter = (rows: { created_at: number; content: string }[], target: number) =>
    rows
      .filter((row) => row.created_at >= target)
      .map((row) => ({ created_at: row.created_at, content: row.content }));

  beforeAll(async () => {
    test = await startTestSluice(dialect);
    root = await signInRoot(test);
  }, 60_000);

  afterAll(async () => {
    await test.close();
  });

  beforeEach(async () => {
    await test.sluice.services.deps.logDb.deleteFrom('logs').execute();
  });

  const databases = () => ({
    db: test.sluice.services.deps.logMaintenanceDb,
    readDb: test.sluice.services.deps.logReadDb,
    dialect,
  });

  it('deletes the older rows over many small batches, keeps the newer, and counts right', async () => {
    const rows = await fill(200);
    const target = 1100;
    const older = rows.filter((row) => row.created_at < target).length;
    expect(await deleteLogsBefore(databases(), target, 7)).toBe(older);
    expect(await remaining()).toEqual(expectedAfter(rows, target));
    expect(await deleteLogsBefore(databases(), target, 7)).toBe(0);
  });

  it('walks ids with gaps and stops at the last old row', async () => {
    const rows = await fill(60);
    // Gaps: every third row gone before the cleanup.
    const ids = await test.sluice.services.deps.logDb.selectFrom('logs').select('id').orderBy('id').execute();
    const gone = ids.filter((_, index) => index % 3 === 0).map((row) => row.id);
    await test.sluice.services.deps.logDb.deleteFrom('logs').where('id', 'in', gone).execute();
    const kept = rows.filter((_, index) => index % 3 !== 0);
    const target = 1030;
    const older = kept.filter((row) => row.created_at < target).length;
    expect(await deleteLogsBefore(databases(), target, 4)).toBe(older);
    expect(await remaining()).toEqual(expectedAfter(kept, target));
  });

  it('deletes nothing when no row is older, and everything when all are', async () => {
    const rows = await fill(30);
    expect(await deleteLogsBefore(databases(), 5, 4)).toBe(0);
    expect(await remaining()).toHaveLength(rows.length);
    expect(await deleteLogsBefore(databases(), 1_000_000, 4)).toBe(rows.length);
    expect(await remaining()).toEqual([]);
  });

  it('answers the number deleted through DELETE /api/log with the default batch', async () => {
    const count = CLEANUP_BATCH_ROWS * 2 + 123;
    const rows = await fill(count);
    const target = 1000 + Math.floor(count / 2);
    const older = rows.filter((row) => row.created_at < target).length;
    const response = await root.delete(`/api/log?target_timestamp=${target}`);
    expect(response.body).toEqual({ success: true, message: '', data: older });
    expect(await remaining()).toEqual(expectedAfter(rows, target));
  }, 60_000);
});
