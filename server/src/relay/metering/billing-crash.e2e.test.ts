import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBuiltServer, type BuiltServer } from '../../test-support/built-server.js';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';
import { consumeLogs } from '../../test-support/relay-helpers.js';
import { testDialects } from '../../test-support/test-databases.js';

/**
 * Small enough that every request reserves (a trusted payer holds 100 × the estimate: about 1,270
 * for a gpt-4o chat without max_tokens, 635 for gpt-4o-2024-08-06), large enough for them all.
 */
const START = 60_000;
const IN_FLIGHT = 12;
const ANSWERED = 24;

const chat = (port: number, key: string, model: string) =>
  fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model,
      stream: true,
      messages: [{ role: 'user', content: 'Hello' }],
    }),
  });

/**
 * kill -9 under streaming load, then a restart on the same database and journal: the streams the
 * kill cut off cost nothing, every stream that had been answered is billed once, and nothing stays
 * reserved — the user's quota taken equals the sum of their log rows, to the unit.
 */
describe.each(testDialects())('kill -9 under streaming load, then a restart, on %s', (dialect) => {
  let fixture: RelayFixture;
  let held: OpenAiDouble;
  let free: OpenAiDouble;
  let user: RelayUser;
  let servers: BuiltServer[] = [];

  beforeAll(async () => {
    held = await startOpenAiDouble();
    free = await startOpenAiDouble();
    fixture = await startRelayFixture(dialect);
    await fixture.channel({ name: 'held', base_url: held.url, models: 'gpt-4o' });
    await fixture.channel({ name: 'free', base_url: free.url, models: 'gpt-4o-2024-08-06' });
    user = await fixture.user({ quota: START, token: { unlimited_quota: false, remain_quota: START } });
  });
  afterAll(async () => {
    for (const server of servers) if (server.child.exitCode === null) server.child.kill('SIGKILL');
    servers = [];
    await fixture?.close();
    await held?.close();
    await free?.close();
  });

  it('bills every answered stream once and holds nothing after the restart', async () => {
    const env = {
      ...fixture.test.database.env,
      SYNC_FREQUENCY: '0',
    };
    const first = await startBuiltServer(env);
    servers.push(first);
    // Streams held by their upstream after the first chunk: in flight when the kill comes.
    let open: () => void = () => undefined;
    held.gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const inFlight = await Promise.all(
      Array.from({ length: IN_FLIGHT }, () => chat(first.port, user.key, 'gpt-4o')),
    );
    const cut = inFlight.map(async (response) => {
      expect(response.status).toBe(200);
      return response.text().then(
        () => 'ended',
        () => 'cut',
      );
    });
    // Streams answered to their end just before the kill (their settlements still gathering).
    const answered = await Promise.all(
      Array.from({ length: ANSWERED }, async () => {
        const response = await chat(first.port, user.key, 'gpt-4o-2024-08-06');
        return { status: response.status, body: await response.text() };
      }),
    );
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe(null);
    for (const { status, body } of answered) {
      expect(status).toBe(200);
      expect(body).toMatch(/data: \[DONE\]\n\n$/);
    }
    expect(await Promise.all(cut)).toEqual(Array.from({ length: IN_FLIGHT }, () => 'cut'));
    open();

    const db = fixture.test.sluice.database.db;
    const quotaOf = async () =>
      Number(
        (await db.selectFrom('users').select('quota').where('id', '=', user.userId).executeTakeFirstOrThrow())
          .quota,
      );
    const heldRows = (await db.selectFrom('sluice_reservations').select('quota').execute()).length;
    const loggedAtKill = (await consumeLogs(db, user.userId)).length;
    const takenAtKill = START - (await quotaOf());

    const second = await startBuiltServer(env);
    servers.push(second);
    const logs = await consumeLogs(db, user.userId);
    const billed = logs.reduce((sum, row) => sum + row.quota, 0);
    const quota = await quotaOf();
    const token = await db
      .selectFrom('tokens')
      .select('remain_quota')
      .where('user_id', '=', user.userId)
      .executeTakeFirstOrThrow();
    console.log(
      `[kill -9 on ${dialect}] at the kill: ${heldRows} reservations held, ${takenAtKill} quota taken, ` +
        `${loggedAtKill}/${ANSWERED} answered streams logged; after the restart: ${logs.length} logged, ` +
        `${billed} billed, ${START - quota} taken`,
    );
    // Every answered stream has its log row, once; none of the cut streams has one.
    expect(logs).toHaveLength(ANSWERED);
    expect(new Set(logs.map((row) => row.request_id)).size).toBe(ANSWERED);
    expect(logs.every((row) => row.model_name === 'gpt-4o-2024-08-06' && row.quota > 0)).toBe(true);
    // The books balance to the unit, for the user and the key; nothing stays reserved.
    expect(START - quota).toBe(billed);
    expect(START - Number(token.remain_quota)).toBe(billed);
    expect(await db.selectFrom('sluice_reservations').selectAll().execute()).toEqual([]);
    // The restarted instance relays as usual.
    const after = await chat(second.port, user.key, 'gpt-4o-2024-08-06');
    expect(after.status).toBe(200);
    await after.text();
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    const final = await consumeLogs(db, user.userId);
    expect(final).toHaveLength(ANSWERED + 1);
    expect(START - (await quotaOf())).toBe(final.reduce((sum, row) => sum + row.quota, 0));
  });
});
