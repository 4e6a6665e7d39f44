import { logFilterSchema } from '@sluice/contract/schemas/log';
import { LOG_TYPE } from '@sluice/contract/statuses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiResponse } from '../test-support/api-client.js';
import {
  insertLogs,
  parseCsv,
  signInNewUser,
  signInRoot,
  type SignedInUser,
} from '../test-support/log-fixtures.js';
import type { ApiClient } from '../test-support/api-client.js';
import { testDialects } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';

const T = 1_700_000_000;
const HEADER = [
  'id',
  'created_at',
  'type',
  'username',
  'token_name',
  'model_name',
  'prompt_tokens',
  'completion_tokens',
  'quota',
  'channel',
  'request_id',
  'elapsed_time',
  'is_stream',
  'content',
  'client_format',
  'routing',
];
const TRICKY = [
  'plain',
  'comma, inside',
  'say "hi"',
  'line one\nline two',
  'crlf\r\nbreak',
  '=HYPERLINK("http://evil","x")',
  '+1+2',
  '-3',
  '@SUM(A1)',
  '中文 content',
];

/** The records of a CSV answer, after checking it is one. */
const csvOf = (response: ApiResponse): string[][] => {
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
  expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="logs-\d+\.csv"$/);
  const records = parseCsv(response.text);
  expect(records[0]).toEqual(HEADER);
  return records.slice(1);
};

describe.each(testDialects())('log CSV export on %s', (dialect) => {
  let test: TestSluice;
  let root: ApiClient;
  let alice: SignedInUser;
  let bob: SignedInUser;

  beforeAll(async () => {
    test = await startTestSluice(dialect);
    root = await signInRoot(test);
    alice = await signInNewUser(test, 'alice');
    bob = await signInNewUser(test, 'bob');
    await insertLogs(test.sluice.services.deps.logDb, [
      ...TRICKY.map((content, index) => ({
        user_id: alice.id,
        username: 'alice',
        created_at: T + index,
        type: LOG_TYPE.consume,
        model_name: index % 2 === 0 ? 'gpt-4o' : 'claude-3',
        token_name: '=cmd|tok',
        channel_id: 4,
        quota: 10 + index,
        prompt_tokens: index,
        completion_tokens: 2 * index,
        request_id: `req-${index}`,
        elapsed_time: 100 * index,
        is_stream: index % 2 === 1,
        content,
      })),
      {
        user_id: bob.id,
        username: 'bob',
        created_at: T + 50,
        type: LOG_TYPE.topup,
        content: 'bob secret top-up',
        quota: 9,
      },
    ]);
  });
  afterAll(() => test?.close());

  it('exports every field, quoted per RFC 4180 and defused against formulas', async () => {
    const rows = csvOf(await alice.client.get('/api/log/self/export'));
    expect(rows).toHaveLength(TRICKY.length);
    const newest = TRICKY.length - 1;
    expect(rows.map((row) => row[13])).toEqual(
      TRICKY.map((content) => (/^[=+\-@]/.test(content) ? `'${content}` : content)).reverse(),
    );
    const first = rows.at(-1)!;
    expect(first).toEqual([
      first[0],
      new Date(T * 1000).toISOString(),
      '2',
      'alice',
      "'=cmd|tok",
      'gpt-4o',
      '0',
      '0',
      '10',
      '4',
      'req-0',
      '0',
      'false',
      'plain',
      '',
      '',
    ]);
    expect(Number(first[0])).toBeGreaterThan(0);
    expect(rows[0]?.[12]).toBe('true');
    expect(rows[0]?.[8]).toBe(String(10 + newest));
    const cookie = [...alice.client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const raw = await test.sluice.app.request('/api/log/self/export', { headers: { cookie } });
    const bytes = new Uint8Array(await raw.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
    expect(text).toContain('"\'=HYPERLINK(""http://evil"",""x"")"');
    expect(text).toContain('"line one\nline two"');
    expect(text.split('\r\n')[0]).toBe(`\uFEFF${HEADER.join(',')}`);
  });

  it("keeps a user's export to their own logs, whatever filters they send", async () => {
    const rows = csvOf(await bob.client.get('/api/log/self/export?username=alice&channel=4'));
    expect(rows.map((row) => row[13])).toEqual(['bob secret top-up']);
    const own = csvOf(await alice.client.get('/api/log/self/export'));
    expect(own.some((row) => row[3] === 'bob')).toBe(false);
    expect(csvOf(await bob.client.get('/api/log/self/export?type=2'))).toEqual([]);
  });

  it('applies the admin filters to an admin export', async () => {
    expect(csvOf(await root.get(`/api/log/export?start_timestamp=${T}`))).toHaveLength(TRICKY.length + 1);
    expect(csvOf(await root.get('/api/log/export?username=bob')).map((row) => row[3])).toEqual(['bob']);
    const claude = csvOf(await root.get('/api/log/export/?model_name=claude-3&type=2'));
    expect(claude).toHaveLength(5);
    expect(claude.every((row) => row[5] === 'claude-3')).toBe(true);
    expect(
      csvOf(await root.get(`/api/log/export?start_timestamp=${T + 3}&end_timestamp=${T + 4}`)),
    ).toHaveLength(2);
    expect(csvOf(await root.get('/api/log/export?channel=99'))).toEqual([]);
  });

  it('streams a large export complete and newest first', async () => {
    const bulk = await signInNewUser(test, 'bulk');
    const count = 2500;
    await insertLogs(
      test.sluice.services.deps.logDb,
      Array.from({ length: count }, (_, index) => ({
        user_id: bulk.id,
        username: 'bulk',
        created_at: T + 10_000 + index,
        type: LOG_TYPE.consume,
        quota: index,
        content: `row ${index}`,
      })),
    );
    for (const response of [
      await root.get('/api/log/export?username=bulk'),
      await bulk.client.get('/api/log/self/export'),
    ]) {
      const rows = csvOf(response);
      expect(rows).toHaveLength(count);
      const ids = rows.map((row) => Number(row[0]));
      expect(ids.every((id, index) => index === 0 || id < ids[index - 1]!)).toBe(true);
      expect(rows.map((row) => row[13])).toEqual(
        Array.from({ length: count }, (_, index) => `row ${count - 1 - index}`),
      );
    }
  });

  it('reads the export in batches of 1000 rows', async () => {
    const chunks: string[] = [];
    for await (const chunk of test.sluice.services.logs.exportCsv(
      logFilterSchema.parse({ username: 'bulk' }),
    ))
      chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.split('\r\n').length - 1)).toEqual([1, 1000, 1000, 500]);
  });

  it('exports the routing decision as one readable cell', async () => {
    const carol = await signInNewUser(test, 'carol');
    const routing = {
      strategy: 'round_robin',
      affinity: true,
      attempts: [
        { channel: 3, key: 1, status: 401, reason: 'invalid_api_key', ms: 12 },
        { channel: 3, key: 0, status: 200, reason: '', ms: 310 },
      ],
    };
    await insertLogs(test.sluice.services.deps.logDb, [
      { user_id: carol.id, username: 'carol', created_at: T + 90, routing: JSON.stringify(routing) },
    ]);
    const cell = 'round_robin · affinity: ch#3/k1 401 invalid_api_key 12ms → ch#3/k0 200 310ms';
    expect(csvOf(await root.get('/api/log/export?username=carol')).map((row) => row[15])).toEqual([cell]);
    expect(csvOf(await carol.client.get('/api/log/self/export')).map((row) => row[15])).toEqual([cell]);
  });

  it('refuses bad filters before streaming', async () => {
    const response = await root.get('/api/log/export?start_timestamp=yesterday');
    expect(response.headers.get('content-type')).toMatch(/json/);
    expect(response.body).toEqual({
      success: false,
      message: 'invalid parameter: start_timestamp: must be a whole number',
    });
    expect((await alice.client.get(`/api/log/self/export?token_name=${'t'.repeat(192)}`)).body.success).toBe(
      false,
    );
  });
});
