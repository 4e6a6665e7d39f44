import type { AuditRow } from '@sluice/contract/schemas/audit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nowSeconds } from '../lib/time.js';
import { AUDIT_CSV_HEADER } from '../services/audit-service.js';
import { apiClient, type ApiClient } from '../test-support/api-client.js';
import { channelBody } from '../test-support/channel-fixtures.js';
import { signInNewUser, signInRoot, type SignedInUser } from '../test-support/log-fixtures.js';
import { testDialects } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';

/** RFC 4180 records of a CSV text (quoted fields may hold commas, quotes and line breaks). */
const csvRows = (text: string): string[][] => {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index] ?? '';
    if (quoted && char === '"' && text[index + 1] === '"') {
      field += '"';
      index += 1;
    } else if (char === '"') {
      quoted = !quoted;
    } else if (!quoted && char === ',') {
      record.push(field);
      field = '';
    } else if (!quoted && char === '\n') {
      record.push(field.replace(/\r$/, ''));
      records.push(record);
      record = [];
      field = '';
    } else {
      field += char;
    }
  }
  return records;
};

describe.each(testDialects())('the audit log routes (/api/audit) on %s', (dialect) => {
  let test: TestSluice;
  let root: ApiClient;
  let admin: SignedInUser;
  let common: SignedInUser;
  const list = async (client: ApiClient, query = '') =>
    (await client.get(`/api/audit/?size=100${query}`)).body as { data: AuditRow[]; total: number };

  beforeAll(async () => {
    test = await startTestSluice(dialect);
    root = await signInRoot(test);
    admin = await signInNewUser(test, 'auditadmin', 10);
    common = await signInNewUser(test, 'auditcommon', 1);
    await apiClient(test.sluice.app).post('/api/user/login', { username: 'root', password: 'wrong-one' });
    await apiClient(test.sluice.app).post('/api/user/login', { username: 'nobody', password: 'whatever1' });
    await root.post('/api/channel/', channelBody({ name: 'by-root' }));
    await admin.client.post('/api/channel/', channelBody({ name: 'by-admin' }));
    await admin.client.put('/api/option/', { key: 'RetryTimes', value: '2' });
  });
  afterAll(() => test?.close());

  it('records every sign-in, and every failure with the name typed and the reason', async () => {
    const { data } = await list(root, '&object_type=session');
    const signIns = data.filter((row) => row.action === 'sign_in').map((row) => row.username);
    expect(signIns.sort()).toEqual(['auditadmin', 'auditcommon', 'root']);
    const failures = data.filter((row) => row.action === 'sign_in_failed');
    expect(failures.map((row) => [row.username, row.user_id, row.detail]).sort()).toEqual([
      ['nobody', 0, 'password: username or password is wrong, or the user is banned'],
      ['root', 0, 'password: username or password is wrong, or the user is banned'],
    ]);
    expect(JSON.stringify(data)).not.toContain('wrong-one');
  });

  it('filters by who, object type, action and time, newest first, with the total', async () => {
    const byAdmin = await list(root, '&username=auditadmin');
    expect(byAdmin.data.map((row) => [row.object_type, row.action])).toEqual([
      ['option', 'update'],
      ['channel', 'create'],
      ['session', 'sign_in'],
    ]);
    expect(byAdmin.total).toBe(3);
    const creates = await list(root, '&object_type=channel&action=create');
    expect(creates.data.map((row) => row.username)).toEqual(['auditadmin', 'root']);
    expect((await list(root, `&start_timestamp=${nowSeconds() + 60}`)).data).toEqual([]);
    expect((await list(root, '&end_timestamp=1')).total).toBe(0);
    const paged = (await root.get('/api/audit/?p=1&size=2')).body as { data: AuditRow[]; total: number };
    expect(paged.data).toHaveLength(2);
    expect(paged.total).toBe((await list(root)).total);
  });

  it('refuses a filter it does not know, and a common user every row', async () => {
    expect((await root.get('/api/audit/?object_type=table')).body.success).toBe(false);
    for (const path of ['/api/audit/', '/api/audit/export', '/api/audit/?username=auditcommon'])
      expect((await common.client.get(path)).body).toEqual({
        success: false,
        message: 'no permission: insufficient role',
      });
    expect((await admin.client.get('/api/audit/')).body.success).toBe(true);
  });

  it('exports the rows the filter matches as CSV', async () => {
    const response = await root.get('/api/audit/export?object_type=channel&action=create');
    expect(response.headers.get('content-type')).toContain('text/csv');
    expect(response.headers.get('content-disposition')).toMatch(/attachment; filename="audit-\d+\.csv"/);
    const [header, ...records] = csvRows(response.text.replace(/^\uFEFF/, ''));
    expect(header).toEqual([...AUDIT_CSV_HEADER]);
    expect(header).toContain('before');
    const listed = (await list(root, '&object_type=channel&action=create')).data;
    expect(records.map((record) => Number(record[0]))).toEqual(listed.map((row) => row.id));
    expect(records.map((record) => record[3])).toEqual(['auditadmin', 'root']);
    expect(JSON.parse(records[0]?.[10] ?? '')).toMatchObject({ name: 'by-admin', key: '[masked]' });
    expect(response.text).not.toContain('sk-fixture-key-0001');
  });

  it('ages rows out after AuditLogRetentionDays, and keeps every row at 0', async () => {
    const db = test.sluice.database.db;
    const old = {
      user_id: 1,
      username: 'root',
      role: 100,
      ip: '',
      action: 'update',
      object_type: 'option',
      object_id: 'Old',
      before: null,
      after: null,
      detail: '',
    };
    await db
      .insertInto('sluice_audit_log')
      .values([
        { ...old, created_at: nowSeconds() - 40 * 86_400 },
        { ...old, created_at: nowSeconds() - 20 * 86_400 },
      ])
      .execute();
    const total = (await list(root)).total;
    expect(await test.sluice.services.audit.purgeExpired()).toBe(0);
    expect((await root.put('/api/option/', { key: 'AuditLogRetentionDays', value: '30' })).body.success).toBe(
      true,
    );
    expect(
      (await admin.client.put('/api/option/', { key: 'AuditLogRetentionDays', value: '1' })).body.success,
    ).toBe(false);
    expect(await test.sluice.services.audit.purgeExpired()).toBe(1);
    const remaining = await list(root, '&object_type=option');
    expect(remaining.data.filter((row) => row.object_id === 'Old')).toHaveLength(1);
    // The retention change added a row, the purge took one.
    expect((await list(root)).total).toBe(total);
  });
});
