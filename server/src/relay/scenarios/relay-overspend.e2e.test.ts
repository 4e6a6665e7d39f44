import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sluice } from '../../boot.js';
import { listenSluice, type Listening } from '../../test-support/listen.js';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture } from '../../test-support/relay-fixture.js';
import { consumeLogs, gpt4oCost, tokenCounters, userCounters } from '../../test-support/relay-helpers.js';
import { testDialects } from '../../test-support/test-databases.js';

/** Requests kept in flight at once: as each ends, the next starts. */
const IN_FLIGHT = 50;
/**
 * What the double reports for every answer: a long answer to a request without max_tokens, so the
 * real cost C (10 023) is about 8 × the estimate admission prices it at (≈ 1 300): the payer is
 * trusted (no reservation) until their quota falls under 100 × the estimate, then reserves less
 * than the request costs. Either way the quota can pass zero, by what is in flight only.
 */
const USAGE = { prompt_tokens: 9, completion_tokens: 1000 };
const COST = gpt4oCost(USAGE.prompt_tokens, USAGE.completion_tokens);
/** Enough for 2 × IN_FLIGHT requests' real cost. */
const START = 2 * IN_FLIGHT * COST;
/** A limited key that holds far more than the user: the user's quota is what runs out. */
const KEY_START = 4 * START;
/**
 * "Refused for a while": the load stops once this many requests that started after the last served
 * one started were refused (a served answer that comes back late does not start the count again).
 */
const REFUSED_AT_THE_END = 100;
/** Bounds of the load, whatever happens. */
const MAX_REQUESTS = 600;
const MAX_MS = 10_000;

interface Outcome {
  readonly instance: number;
  readonly status: number;
  readonly code: unknown;
  readonly startedAt: number;
  readonly endedAt: number;
}

/** One chat (every other one streamed) through an instance's real listener; its body read whole. */
const chat = async (url: string, key: string, stream: boolean) => {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o', stream, messages: [{ role: 'user', content: 'Hello!' }] }),
  });
  const text = await response.text();
  let code: unknown;
  if (response.status !== 200) {
    try {
      code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
    } catch {
      code = text;
    }
  } else if (stream) expect(text).toMatch(/data: \[DONE\]\n\n$/);
  return { status: response.status, code };
};

/** Refusals of requests that started after the last served one started. */
const refusedAtTheEnd = (outcomes: readonly Outcome[]): number => {
  const lastServed = outcomes.reduce(
    (last, one) => (one.status === 200 ? Math.max(last, one.startedAt) : last),
    -Infinity,
  );
  return outcomes.filter((one) => one.status === 403 && one.startedAt > lastServed).length;
};

/**
 * Sustained load: IN_FLIGHT requests at once, alternating between the instances, until the user has
 * been refused for a while (REFUSED_AT_THE_END) or the bounds are reached.
 */
const load = async (urls: readonly string[], key: string): Promise<Outcome[]> => {
  const outcomes: Outcome[] = [];
  const deadline = performance.now() + MAX_MS;
  let next = 0;
  let refused = 0;
  const worker = async () => {
    while (next < MAX_REQUESTS && refused < REFUSED_AT_THE_END && performance.now() < deadline) {
      const index = next;
      next += 1;
      const instance = index % urls.length;
      const startedAt = performance.now();
      const { status, code } = await chat(urls[instance] ?? '', key, index % 2 === 1);
      outcomes.push({ instance, status, code, startedAt, endedAt: performance.now() });
      refused = refusedAtTheEnd(outcomes);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return outcomes;
};

/**
 * "No overspend beyond what is in flight" (issue 20): admission checks a balance that already
 * counts reservations and unsettled usage, on one instance and across instances sharing the
 * database; a user cannot go below zero by more than the real cost of the requests in flight when
 * the quota ran out; no false "quota not enough" while billing catches up; and afterwards the books
 * balance to the unit.
 */
describe.each(testDialects())('no overspend beyond what is in flight, on %s', (dialect) => {
  let fixture: RelayFixture;
  let upstream: OpenAiDouble;
  let second: Sluice;
  let secondServer: Listening;

  beforeAll(async () => {
    upstream = await startOpenAiDouble();
    upstream.usage = USAGE;
    fixture = await startRelayFixture(dialect);
    second = await fixture.test.boot();
    secondServer = await listenSluice(second);
    await fixture.channel({ name: 'overspend', base_url: upstream.url, models: 'gpt-4o' });
  });
  afterAll(async () => {
    await secondServer?.close();
    await fixture?.close();
    await upstream?.close();
  });

  it.each([
    { label: 'one instance', instances: 1 },
    { label: 'two instances sharing the database', instances: 2 },
  ])(
    '$label: the books balance, overspend ≤ in flight × C, no false refusal',
    async ({ label, instances }) => {
      const user = await fixture.user({
        quota: START,
        token: { unlimited_quota: false, remain_quota: KEY_START },
      });
      const urls = [fixture.server.url, secondServer.url].slice(0, instances);
      const began = performance.now();
      const outcomes = await load(urls, user.key);
      const elapsed = Math.round(performance.now() - began);
      await fixture.test.sluice.idle();
      await second.idle();

      const db = fixture.test.sluice.database.db;
      const served = outcomes.filter((outcome) => outcome.status === 200);
      const refused = outcomes.filter((outcome) => outcome.status === 403);
      const logs = await consumeLogs(db, user.userId);
      const billed = logs.reduce((sum, row) => sum + row.quota, 0);
      const counters = await userCounters(db, user.userId);
      const key = await tokenCounters(db, user.tokenId);
      const held = await db
        .selectFrom('sluice_reservations')
        .select(['id', 'quota', 'released_at'])
        .execute();
      const spent = START - counters.quota;
      const overspend = Math.max(0, -counters.quota);
      // A refusal is false when the quota, at the real cost of the requests served, still covered
      // IN_FLIGHT × C more than every served request that had started before the refusal came back.
      const falseRefusals = refused.filter(
        (refusal) =>
          START - COST * served.filter((one) => one.startedAt < refusal.endedAt).length >= IN_FLIGHT * COST,
      );
      const firstRefusal = refused.reduce((first, one) => Math.min(first, one.endedAt), Infinity);
      const servedBeforeFirstRefusal = served.filter((one) => one.startedAt < firstRefusal).length;
      console.log(
        `[overspend on ${dialect}, ${label}] ${outcomes.length} requests in ${elapsed} ms: ` +
          `${served.length} served (${served.filter((one) => one.instance === 1).length} by the second instance), ` +
          `${refused.length} refused (${falseRefusals.length} falsely; ${servedBeforeFirstRefusal} served had ` +
          `started before the first); C = ${COST}, start ${START} (${START / COST} × C), spent ${spent}, ` +
          `final quota ${counters.quota}, overspend ${overspend} (${(overspend / COST).toFixed(2)} × C, ` +
          `bound ${IN_FLIGHT} × C = ${IN_FLIGHT * COST}); ${held.length} reservations left`,
      );

      // Every request was served or refused for the user's quota, and the load ended on refusals.
      expect(outcomes.filter((outcome) => outcome.status !== 200 && outcome.status !== 403)).toEqual([]);
      expect(new Set(refused.map((outcome) => outcome.code))).toEqual(new Set(['insufficient_user_quota']));
      expect(refusedAtTheEnd(outcomes)).toBeGreaterThanOrEqual(REFUSED_AT_THE_END);
      // Each served request has one log row at the known real cost C.
      expect(logs).toHaveLength(served.length);
      expect(logs.map((row) => row.quota)).toEqual(served.map(() => COST));
      // (1) The books balance exactly: the user's and the key's quota taken is the sum of the log rows.
      expect(spent).toBe(billed);
      expect(counters.used_quota).toBe(billed);
      expect(counters.request_count).toBe(served.length);
      expect(KEY_START - key.remain_quota).toBe(billed);
      expect(key.used_quota).toBe(billed);
      expect(held).toEqual([]);
      // (2) Only what was in flight when the quota ran out passed zero.
      expect(counters.quota).toBeGreaterThanOrEqual(-IN_FLIGHT * COST);
      // (3) No false refusal: none while the quota still covered IN_FLIGHT × C more than was spent.
      expect(falseRefusals).toEqual([]);
      expect(served.length).toBeGreaterThanOrEqual(Math.floor(START / COST) - IN_FLIGHT);
    },
  );
});
