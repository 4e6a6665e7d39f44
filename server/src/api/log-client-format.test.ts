import type { Log, LogStat } from '@sluice/contract/schemas/log';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSettlements, type Settlement } from '../relay/metering/settlement-write.js';
import type { ApiClient } from '../test-support/api-client.js';
import { parseCsv, signInNewUser, signInRoot, type SignedInUser } from '../test-support/log-fixtures.js';
import { testDialects } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';

/** A settlement of `user` whose log row says `clientFormat` (none: as an older journal's line). */
const settlement = (user: SignedInUser, quota: number, clientFormat?: 'anthropic' | 'gemini' | 'openai') =>
  ({
    payer: { userId: user.id, tokenId: 0, unlimited: true },
    username: user.username,
    tokenName: 'key',
    channelId: 5,
    preQuota: 0,
    quota,
    log: {
      model: 'claude-sonnet-4-5',
      promptTokens: 10,
      completionTokens: 2,
      content: 'model ratio 1.50',
      requestId: `req-${quota}`,
      elapsedMs: 3,
      stream: false,
      systemPromptReset: false,
      ...(clientFormat ? { clientFormat } : {}),
    },
  }) satisfies Settlement;

describe.each(testDialects())('the client format of log rows on %s', (dialect) => {
  let test: TestSluice;
  let root: ApiClient;
  let alice: SignedInUser;

  beforeAll(async () => {
    test = await startTestSluice(dialect);
    root = await signInRoot(test);
    alice = await signInNewUser(test, 'alice');
    const batch = [
      settlement(alice, 11, 'anthropic'),
      settlement(alice, 12, 'gemini'),
      settlement(alice, 13),
      settlement(alice, 14, 'anthropic'),
      settlement(alice, 15, 'openai'),
    ];
    await test.sluice.database.db.transaction().execute((trx) =>
      writeSettlements(
        trx,
        batch.map((entry, index) => ({ seq: index + 1, settlement: entry })),
        { dialect, instanceId: '00000000-0000-4000-8000-000000000001', logsHere: true, checkWritten: false },
      ),
    );
  });
  afterAll(() => test?.close());

  const list = async (client: ApiClient, path: string): Promise<Log[]> => {
    const response = await client.get(path);
    expect(response.body, path).toMatchObject({ success: true });
    return (response.body as { data: Log[] }).data;
  };

  it('is written by the settlement, NULL when the settlement has none', async () => {
    const rows = await test.sluice.database.db
      .selectFrom('logs')
      .select(['quota', 'client_format'])
      .where('user_id', '=', alice.id)
      .orderBy('quota')
      .execute();
    expect(rows.map((row) => [Number(row.quota), row.client_format])).toEqual([
      [11, 'anthropic'],
      [12, 'gemini'],
      [13, null],
      [14, 'anthropic'],
      [15, 'openai'],
    ]);
  });

  it('is returned by the log lists (empty when unknown) and filters them, the statistic and the export', async () => {
    const all = await list(root, '/api/log/');
    expect(all.map((log) => [log.quota, log.client_format])).toEqual([
      [15, 'openai'],
      [14, 'anthropic'],
      [13, ''],
      [12, 'gemini'],
      [11, 'anthropic'],
    ]);
    expect((await list(root, '/api/log/?client_format=anthropic')).map((log) => log.quota)).toEqual([14, 11]);
    expect((await list(alice.client, '/api/log/self/?client_format=gemini')).map((log) => log.quota)).toEqual(
      [12],
    );
    expect(await list(alice.client, '/api/log/self/?client_format=responses')).toEqual([]);
    expect((await list(alice.client, '/api/log/self/?client_format=')).length).toBe(5);
    const stat = await root.get('/api/log/stat?client_format=anthropic');
    expect((stat.body as { data: LogStat }).data).toEqual({ quota: 25, token: 24 });
    const own = await alice.client.get('/api/log/self/stat?client_format=openai');
    expect((own.body as { data: LogStat }).data).toEqual({ quota: 15, token: 12 });
    const csv = parseCsv((await root.get('/api/log/export?client_format=gemini')).text);
    const column = csv[0]?.indexOf('client_format') ?? -1;
    expect(column).toBeGreaterThan(0);
    expect(csv.slice(1).map((record) => [record[8], record[column]])).toEqual([['12', 'gemini']]);
  });

  it('refuses a format it does not know', async () => {
    const response = await root.get('/api/log/?client_format=carrier-pigeon');
    expect(response.body).toEqual({
      success: false,
      message: 'invalid parameter: client_format: must be one of openai, anthropic, responses, gemini',
    });
  });
});
