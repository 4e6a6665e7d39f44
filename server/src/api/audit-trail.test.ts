import { MASKED, MASKED_CHANGED, type AuditRow } from '@sluice/contract/schemas/audit';
import { CHANNEL_STATUS } from '@sluice/contract/statuses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../test-support/api-client.js';
import { channelBody } from '../test-support/channel-fixtures.js';
import { signInNewUser, signInRoot } from '../test-support/log-fixtures.js';
import { testDialects } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';

const CHANNEL_KEY = 'sk-audit-channel-key-0001';
const ROTATED_KEY = 'sk-audit-rotated-key-0002';
const AWS_SECRET = 'aws-secret-access-key-0003';
const USER_PASSWORD = 'new-pass-0004';
const SMTP_TOKEN = 'smtp-token-0005';

describe.each(testDialects())('the audit trail of administrative changes on %s', (dialect) => {
  let test: TestSluice;
  let root: ApiClient;
  const db = () => test.sluice.database.db;
  const rows = async (): Promise<AuditRow[]> =>
    ((await root.get('/api/audit/?size=100')).body.data as AuditRow[]).filter(
      (row) => row.object_type !== 'session',
    );
  /** Runs one call and answers the audit rows it added (newest first). */
  const added = async (call: () => Promise<ApiResponse>): Promise<AuditRow[]> => {
    const known = new Set((await rows()).map((row) => row.id));
    const response = await call();
    expect(response.body.success, response.text).toBe(true);
    return (await rows()).filter((row) => !known.has(row.id));
  };
  const one = async (call: () => Promise<ApiResponse>): Promise<AuditRow> => {
    const fresh = await added(call);
    expect(fresh).toHaveLength(1);
    return fresh[0] as AuditRow;
  };
  const parsed = (text: string | null): Record<string, unknown> =>
    text === null ? {} : (JSON.parse(text) as Record<string, unknown>);

  beforeAll(async () => {
    test = await startTestSluice(dialect);
    root = await signInRoot(test);
  });
  afterAll(() => test?.close());

  it('records channels: created, updated with a rotated key, deleted; never a key', async () => {
    const config = JSON.stringify({ region: 'us-east-1', ak: 'AKIA', sk: AWS_SECRET });
    const created = await one(() => root.post('/api/channel/', channelBody({ key: CHANNEL_KEY, config })));
    expect(created).toMatchObject({ username: 'root', role: 100, action: 'create', object_type: 'channel' });
    expect(parsed(created.after)).toMatchObject({ name: 'main', key: MASKED, config: { sk: MASKED } });
    const { id } = await db().selectFrom('channels').select('id').executeTakeFirstOrThrow();

    const renamed = await one(() => root.put('/api/channel/', { id, name: 'renamed' }));
    expect(renamed).toMatchObject({ action: 'update', object_id: String(id) });
    expect(parsed(renamed.before)).toMatchObject({ name: 'main', key: MASKED });
    expect(parsed(renamed.after)).toMatchObject({ name: 'renamed', key: MASKED });

    const rotated = await one(() => root.put('/api/channel/', { id, key: ROTATED_KEY }));
    expect(parsed(rotated.after)).toMatchObject({ key: MASKED_CHANGED });

    const deleted = await one(() => root.delete(`/api/channel/${id}`));
    expect(deleted).toMatchObject({ action: 'delete', object_id: String(id), after: null });
    expect(parsed(deleted.before)).toMatchObject({ name: 'renamed' });

    await root.post('/api/channel/', channelBody({ name: 'off', status: CHANNEL_STATUS.manuallyDisabled }));
    const swept = await one(() => root.delete('/api/channel/disabled'));
    expect(swept).toMatchObject({ action: 'delete_disabled', detail: 'deleted 1 channels' });
    expect(JSON.parse(swept.before ?? '[]')).toEqual([expect.objectContaining({ name: 'off' })]);

    const text = JSON.stringify(await rows());
    for (const secret of [CHANNEL_KEY, ROTATED_KEY, AWS_SECRET]) expect(text).not.toContain(secret);
  });

  it('records users: created, updated, managed, topped up, deleted; never a password or token', async () => {
    const created = await one(() =>
      root.post('/api/user/', { username: 'audited', password: USER_PASSWORD, display_name: 'A' }),
    );
    expect(parsed(created.after)).toMatchObject({ username: 'audited', password: MASKED });
    const { id } = await db()
      .selectFrom('users')
      .select('id')
      .where('username', '=', 'audited')
      .executeTakeFirstOrThrow();
    await db()
      .updateTable('users')
      .set({ access_token: 'user-access-token-0006' })
      .where('id', '=', id)
      .execute();

    const updated = await one(() =>
      root.put('/api/user/', { id, display_name: 'B', password: 'another-pass-7' }),
    );
    expect(parsed(updated.before)).toMatchObject({
      display_name: 'A',
      password: MASKED,
      access_token: MASKED,
    });
    expect(parsed(updated.after)).toMatchObject({ display_name: 'B', password: MASKED_CHANGED });

    const managed = await one(() =>
      root.post('/api/user/manage', { username: 'audited', action: 'disable' }),
    );
    expect(managed).toMatchObject({ action: 'manage', object_id: String(id), detail: 'disable' });
    expect(parsed(managed.before)).toMatchObject({ status: 1 });
    expect(parsed(managed.after)).toMatchObject({ status: 2 });

    const topped = await one(() => root.post('/api/topup', { user_id: id, quota: 500, remark: 'invoice 9' }));
    expect(topped).toMatchObject({ action: 'top_up', object_id: String(id), detail: 'quota 500 invoice 9' });
    expect(parsed(topped.after)).toMatchObject({ quota: 500 });

    const deleted = await one(() => root.delete(`/api/user/${id}`));
    expect(deleted).toMatchObject({ action: 'delete', object_type: 'user', object_id: String(id) });

    const text = JSON.stringify(await rows());
    for (const secret of [USER_PASSWORD, 'another-pass-7', 'user-access-token-0006'])
      expect(text).not.toContain(secret);
  });

  it('records redemption codes without their keys', async () => {
    const created = await one(() => root.post('/api/redemption/', { name: 'gift', quota: 10, count: 2 }));
    expect(parsed(created.after)).toEqual({ name: 'gift', quota: 10, count: 2 });
    const code = await db().selectFrom('redemptions').selectAll().orderBy('id').executeTakeFirstOrThrow();
    const renamed = await one(() => root.put('/api/redemption/', { id: code.id, name: 'gift2', quota: 20 }));
    expect(parsed(renamed.after)).toMatchObject({ name: 'gift2', quota: 20, key: MASKED });
    const disabled = await one(() =>
      root.put('/api/redemption/?status_only=true', { id: code.id, status: 2 }),
    );
    expect(disabled).toMatchObject({ action: 'update_status', object_id: String(code.id) });
    await one(() => root.delete(`/api/redemption/${code.id}`));
    expect(JSON.stringify(await rows())).not.toContain(code.key);
  });

  it('records options: secrets masked, a ratio map as the entries that changed', async () => {
    const secret = await one(() => root.put('/api/option/', { key: 'SMTPToken', value: SMTP_TOKEN }));
    expect(secret).toMatchObject({ object_type: 'option', action: 'update', object_id: 'SMTPToken' });
    expect(parsed(secret.after)).toEqual({ SMTPToken: MASKED });
    const ratio = await one(() =>
      root.put('/api/option/batch', [
        { key: 'GroupRatio', value: JSON.stringify({ default: 1, vip: 2, svip: 1, team: 0.5 }) },
        { key: 'RetryTimes', value: '3' },
      ]),
    );
    expect(ratio.object_id).toBe('GroupRatio,RetryTimes');
    expect(parsed(ratio.before)).toEqual({ GroupRatio: { vip: 1 }, RetryTimes: 0 });
    expect(parsed(ratio.after)).toEqual({ GroupRatio: { vip: 2, team: 0.5 }, RetryTimes: 3 });
    expect(JSON.stringify(await rows())).not.toContain(SMTP_TOKEN);
  });

  it('records the log cleanup with how many rows it deleted', async () => {
    const cleanup = await one(() => root.delete('/api/log/?target_timestamp=1000'));
    expect(cleanup).toMatchObject({ object_type: 'log', object_id: '1000', detail: 'deleted 0 rows' });
  });

  it('writes nothing for a refused or failed change, nor for reads and a user’s own changes', async () => {
    const user = await signInNewUser(test, 'plainuser');
    const before = (await rows()).length;
    await user.client.post('/api/channel/', channelBody());
    await user.client.put('/api/option/', { key: 'RetryTimes', value: '1' });
    await root.put('/api/channel/', { id: 999_999, name: 'ghost' });
    await root.put('/api/option/', { key: 'RetryTimes', value: 'many' });
    await root.get('/api/channel/');
    await user.client.put('/api/user/self', { display_name: 'me' });
    await user.client.post('/api/token/', { name: 'mine', remain_quota: 1, expired_time: -1 });
    expect(await rows()).toHaveLength(before);
  });

  it('has no route that edits or deletes a row', async () => {
    const [row] = await rows();
    for (const response of [
      await root.put('/api/audit/', { id: row?.id }),
      await root.delete(`/api/audit/${row?.id}`),
      await root.delete('/api/audit/'),
    ])
      expect(response.status).toBe(404);
    expect((await rows())[0]).toEqual(row);
  });
});
