import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  runClaudeCode,
  runCodex,
  runGeminiCli,
  type AgentAnswer,
} from '../../test-support/agent-cli-runs.js';
import { CLAUDE_CODE, CODEX, GEMINI_CLI, installCli } from '../../test-support/agent-clis.js';
import { startAnthropicDouble, type AnthropicDouble } from '../../test-support/anthropic-double.js';
import { startGeminiDouble, type GeminiDouble } from '../../test-support/gemini-double.js';
import type { RecordedRequest } from '../../test-support/openai-double.js';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import {
  listenRecordingSluice,
  type DoorRequest,
  type RecordingSluice,
} from '../../test-support/recording-listener.js';
import { consumeLogs, tokenCounters, userCounters } from '../../test-support/relay-helpers.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';

/**
 * The real coding-agent CLIs, headless, through Sluice to loopback doubles: each answers with the
 * double's text, reports the double's usage, and Sluice bills exactly that usage. The CLIs are
 * installed once per version under the OS temp dir (agent-clis.ts says why); a CLI that cannot be
 * installed or run fails its tests with its exact output.
 */

const CLAUDE = 'claude-3-5-sonnet-20241022';
const GPT = 'gpt-4o';
const DEEPSEEK = 'deepseek-chat';
const GEMINI = 'gemini-2.0-flash';
const PROMPT = 'Reply with one short greeting. Do not use any tools.';
const QUOTA = 10_000_000;
const RUN_MS = 60_000;
const TEST_MS = 90_000;
const INSTALL_MS = 300_000;

/** One-api's ratios of the models used here: [model ratio, completion ratio]. */
const PRICES: Record<string, readonly [number, number]> = {
  [CLAUDE]: [1.5, 5],
  [GPT]: [2.5, 4],
  [DEEPSEEK]: [0.07, 2],
  [GEMINI]: [0.075, 3],
};

/** ceil((prompt + completion × completion ratio) × model ratio), float noise ignored. */
const costOf = (model: string, input: number, output: number): number => {
  const [ratio, completion] = PRICES[model] ?? [0, 0];
  return Math.ceil(Math.round((input + output * completion) * ratio * 1e6) / 1e6);
};

interface Usage {
  readonly input: number;
  readonly output: number;
}

describe('relay: the coding-agent CLIs, headless, through Sluice', () => {
  let fixture: RelayFixture;
  let door: RecordingSluice;
  let anthropic: AnthropicDouble;
  let openai: OpenAiDouble;
  let deepseek: OpenAiDouble;
  let gemini: GeminiDouble;
  const channels: Record<string, number> = {};

  beforeAll(async () => {
    [anthropic, openai, deepseek, gemini] = await Promise.all([
      startAnthropicDouble(),
      startOpenAiDouble(),
      startOpenAiDouble(),
      startGeminiDouble(),
    ]);
    // An agent CLI offers its tools every turn: the doubles answer text, as a model that needs none.
    anthropic.callsTools = false;
    gemini.callsTools = false;
    fixture = await startRelayFixture('sqlite');
    door = await listenRecordingSluice(fixture.test.sluice);
    channels['anthropic'] = await fixture.channel({
      name: 'anthropic',
      type: CHANNEL_TYPE.anthropic,
      key: anthropic.key,
      base_url: anthropic.url,
      models: CLAUDE,
    });
    channels['openai'] = await fixture.channel({ name: 'openai', base_url: openai.url, models: GPT });
    channels['deepseek'] = await fixture.channel({
      name: 'deepseek',
      type: CHANNEL_TYPE.deepSeek,
      base_url: deepseek.url,
      models: DEEPSEEK,
    });
    channels['gemini'] = await fixture.channel({
      name: 'gemini',
      type: CHANNEL_TYPE.gemini,
      key: gemini.key,
      base_url: gemini.url,
      models: GEMINI,
    });
  });
  afterAll(async () => {
    await door?.close();
    await fixture?.close();
    await Promise.all([anthropic?.close(), openai?.close(), deepseek?.close(), gemini?.close()]);
  });

  /** Runs a CLI and answers what it said with what reached Sluice and the double meanwhile. */
  const observe = async (upstream: { requests: RecordedRequest[] }, run: () => Promise<AgentAnswer>) => {
    const doorBefore = door.requests.length;
    const upstreamBefore = upstream.requests.length;
    const answer = await run();
    const seen = door.requests.slice(doorBefore);
    // Every call to the gateway's API was served, but a WebSocket upgrade (refused with 426).
    const refused = seen.filter(
      (request) =>
        /^\/v1(beta)?\//.test(request.url) &&
        (request.status ?? 0) >= 400 &&
        !(request.headers['upgrade'] === 'websocket' && request.status === 426),
    );
    expect(refused.map((request) => `${request.method} ${request.url} ${String(request.status)}`)).toEqual(
      [],
    );
    return { answer, seen, sent: upstream.requests.slice(upstreamBefore) };
  };

  const posts = (seen: readonly DoorRequest[]) => seen.filter((request) => request.method === 'POST');
  const bodyOf = (request: DoorRequest) => Buffer.concat(request.body);

  /** The log rows, the user's and the key's counters: every call billed at the double's usage. */
  const expectBilled = async (
    user: RelayUser,
    channel: string,
    model: string,
    usage: Usage,
    calls: number,
  ) => {
    await fixture.test.sluice.idle();
    const db = fixture.test.sluice.database.db;
    const logs = await consumeLogs(db, user.userId);
    const cost = costOf(model, usage.input, usage.output);
    expect(cost).toBeGreaterThan(0);
    expect(logs).toHaveLength(calls);
    for (const log of logs)
      expect(log).toMatchObject({
        model_name: model,
        channel_id: channels[channel],
        prompt_tokens: usage.input,
        completion_tokens: usage.output,
        is_stream: true,
        quota: cost,
      });
    expect(await userCounters(db, user.userId)).toMatchObject({
      quota: QUOTA - calls * cost,
      used_quota: calls * cost,
      request_count: calls,
    });
    expect((await tokenCounters(db, user.tokenId)).used_quota).toBe(calls * cost);
  };

  describe(`Claude Code ${CLAUDE_CODE.version}`, () => {
    let binary: string;
    beforeAll(async () => {
      binary = await installCli(CLAUDE_CODE);
    }, INSTALL_MS);

    it(
      'passes its Messages stream through to an Anthropic channel, key in x-api-key',
      async () => {
        const user = await fixture.user({ quota: QUOTA });
        anthropic.reply = 'Hello from the Anthropic double, through Sluice.';
        anthropic.usage = { input_tokens: 1830, output_tokens: 47 };
        const { answer, seen, sent } = await observe(anthropic, () =>
          runClaudeCode({
            binary,
            baseUrl: door.url,
            key: `sk-${user.key}`,
            keyVariable: 'ANTHROPIC_API_KEY',
            model: CLAUDE,
            prompt: PROMPT,
            timeoutMs: RUN_MS,
          }),
        );
        expect(answer.text).toBe(anthropic.reply);
        expect(answer.usage).toEqual({ input: 1830, output: 47 });
        const calls = posts(seen);
        expect(calls.map((call) => call.url)).toEqual(sent.map(() => '/v1/messages?beta=true'));
        for (const call of calls) {
          expect(call.headers['x-api-key']).toBe(`sk-${user.key}`);
          expect(call.headers['anthropic-version']).toBe('2023-06-01');
          expect(call.headers['user-agent']).toMatch(/^claude-cli\//);
        }
        expect(sent.length).toBeGreaterThan(0);
        sent.forEach((request, index) => {
          expect(request.path).toBe('/v1/messages');
          expect(request.headers['x-api-key']).toBe(anthropic.key);
          expect(request.headers['anthropic-beta']).toBe(calls[index]?.headers['anthropic-beta']);
          // Untouched: the client's bytes, its tools, system blocks and metadata.user_id included.
          expect(request.body.equals(bodyOf(calls[index]!))).toBe(true);
          expect(request.json).toMatchObject({
            model: CLAUDE,
            stream: true,
            metadata: { user_id: expect.any(String) },
          });
        });
        await expectBilled(user, 'anthropic', CLAUDE, { input: 1830, output: 47 }, sent.length);
      },
      TEST_MS,
    );

    it(
      'is translated to a DeepSeek channel’s chat completions, key as a Bearer token',
      async () => {
        const user = await fixture.user({ quota: QUOTA });
        deepseek.reply = 'Hello from the DeepSeek double, translated by Sluice.';
        deepseek.usage = { prompt_tokens: 2400, completion_tokens: 64 };
        const { answer, seen, sent } = await observe(deepseek, () =>
          runClaudeCode({
            binary,
            baseUrl: door.url,
            key: `sk-${user.key}`,
            keyVariable: 'ANTHROPIC_AUTH_TOKEN',
            model: DEEPSEEK,
            prompt: PROMPT,
            timeoutMs: RUN_MS,
          }),
        );
        expect(answer.text).toBe(deepseek.reply);
        expect(answer.usage).toEqual({ input: 2400, output: 64 });
        const calls = posts(seen);
        expect(calls.map((call) => call.url)).toEqual(sent.map(() => '/v1/messages?beta=true'));
        for (const call of calls) expect(call.headers['authorization']).toBe(`Bearer sk-${user.key}`);
        expect(sent.length).toBeGreaterThan(0);
        for (const request of sent) {
          expect(request.path).toBe('/v1/chat/completions');
          expect(request.json).toMatchObject({
            model: DEEPSEEK,
            stream: true,
            stream_options: { include_usage: true },
          });
          expect((request.json?.['tools'] as unknown[]).length).toBeGreaterThan(5);
        }
        await expectBilled(user, 'deepseek', DEEPSEEK, { input: 2400, output: 64 }, sent.length);
      },
      TEST_MS,
    );
  });

  describe(`Codex CLI ${CODEX.version}`, () => {
    let binary: string;
    beforeAll(async () => {
      binary = await installCli(CODEX);
    }, INSTALL_MS);

    const codex = (user: RelayUser, model: string, websockets: boolean) =>
      runCodex({
        binary,
        baseUrl: door.url,
        key: `sk-${user.key}`,
        model,
        prompt: PROMPT,
        timeoutMs: RUN_MS,
        websockets,
      });

    it(
      'passes its Responses stream through to OpenAI’s own channel',
      async () => {
        const user = await fixture.user({ quota: QUOTA });
        openai.reply = 'Hello from the OpenAI double, through Sluice.';
        openai.usage = { prompt_tokens: 1500, completion_tokens: 40 };
        const { answer, seen, sent } = await observe(openai, () => codex(user, GPT, false));
        expect(answer.text).toBe(openai.reply);
        expect(answer.usage).toEqual({ input: 1500, output: 40 });
        const calls = posts(seen);
        expect(calls.map((call) => call.url)).toEqual(sent.map(() => '/v1/responses'));
        for (const call of calls) expect(call.headers['authorization']).toBe(`Bearer sk-${user.key}`);
        expect(sent.length).toBeGreaterThan(0);
        sent.forEach((request, index) => {
          expect(request.path).toBe('/v1/responses');
          expect(request.headers['authorization']).toBe('Bearer sk-upstream-secret-key-000');
          expect(request.body.equals(bodyOf(calls[index]!))).toBe(true);
          expect(request.json).toMatchObject({ model: GPT, stream: true, store: false });
        });
        await expectBilled(user, 'openai', GPT, { input: 1500, output: 40 }, sent.length);
      },
      TEST_MS,
    );

    it(
      'is translated to an Anthropic channel’s Messages',
      async () => {
        const user = await fixture.user({ quota: QUOTA });
        anthropic.reply = 'Hello from the Anthropic double, for Codex.';
        anthropic.usage = { input_tokens: 1700, output_tokens: 30 };
        const { answer, seen, sent } = await observe(anthropic, () => codex(user, CLAUDE, false));
        expect(answer.text).toBe(anthropic.reply);
        expect(answer.usage).toEqual({ input: 1700, output: 30 });
        expect(posts(seen).map((call) => call.url)).toEqual(sent.map(() => '/v1/responses'));
        expect(sent.length).toBeGreaterThan(0);
        for (const request of sent) {
          expect(request.path).toBe('/v1/messages');
          expect(request.json).toMatchObject({ model: CLAUDE, stream: true, system: expect.any(String) });
          expect((request.json?.['tools'] as unknown[]).length).toBeGreaterThan(3);
        }
        await expectBilled(user, 'anthropic', CLAUDE, { input: 1700, output: 30 }, sent.length);
      },
      TEST_MS,
    );

    it(
      'falls back from the WebSocket to HTTPS at once when the provider is said to support it',
      async () => {
        const user = await fixture.user({ quota: QUOTA });
        openai.reply = 'Hello over HTTPS, after the WebSocket was refused.';
        openai.usage = { prompt_tokens: 1500, completion_tokens: 40 };
        const { answer, seen, sent } = await observe(openai, () => codex(user, GPT, true));
        expect(answer.text).toBe(openai.reply);
        expect(answer.notices.filter((notice) => /reconnecting|websocket/i.test(notice))).toEqual([]);
        const upgrades = seen.filter((request) => request.headers['upgrade'] === 'websocket');
        expect(upgrades.length).toBeGreaterThan(0);
        // 426 ends the WebSocket at the first try; a 501 or 404 cost five retries (about 6 s) first.
        expect(upgrades.length).toBeLessThanOrEqual(2);
        for (const upgrade of upgrades) {
          expect(upgrade).toMatchObject({ method: 'GET', url: '/v1/responses', status: 426 });
          expect(upgrade.headers['openai-beta']).toMatch(/^responses_websockets=/);
          expect(upgrade.headers['authorization']).toBe(`Bearer sk-${user.key}`);
        }
        const calls = posts(seen);
        expect(calls.map((call) => call.url)).toEqual(sent.map(() => '/v1/responses'));
        expect(calls[0]!.at - upgrades[0]!.at).toBeLessThan(3_000);
        await expectBilled(user, 'openai', GPT, { input: 1500, output: 40 }, sent.length);
      },
      TEST_MS,
    );
  });

  describe(`Gemini CLI ${GEMINI_CLI.version}`, () => {
    let binary: string;
    beforeAll(async () => {
      binary = await installCli(GEMINI_CLI);
    }, INSTALL_MS);

    const geminiCli = (user: RelayUser, model: string) =>
      runGeminiCli({
        binary,
        baseUrl: door.url,
        key: `sk-${user.key}`,
        model,
        prompt: PROMPT,
        timeoutMs: RUN_MS,
      });

    it(
      'passes its streamGenerateContent through to a Gemini channel, key in x-goog-api-key',
      async () => {
        const user = await fixture.user({ quota: QUOTA });
        gemini.reply = 'Hello from the Gemini double, through Sluice.';
        gemini.usage = { promptTokenCount: 900, candidatesTokenCount: 20 };
        const { answer, seen, sent } = await observe(gemini, () => geminiCli(user, GEMINI));
        expect(answer.text).toBe(gemini.reply);
        expect(answer.usage).toEqual({ input: 900, output: 20 });
        const calls = posts(seen);
        expect(calls.map((call) => call.url)).toEqual(
          sent.map(() => `/v1beta/models/${GEMINI}:streamGenerateContent?alt=sse`),
        );
        for (const call of calls) expect(call.headers['x-goog-api-key']).toBe(`sk-${user.key}`);
        expect(sent.length).toBeGreaterThan(0);
        sent.forEach((request, index) => {
          expect(request.path).toBe(`/v1beta/models/${GEMINI}:streamGenerateContent`);
          expect(request.headers['x-goog-api-key']).toBe(gemini.key);
          expect(request.body.equals(bodyOf(calls[index]!))).toBe(true);
        });
        await expectBilled(user, 'gemini', GEMINI, { input: 900, output: 20 }, sent.length);
      },
      TEST_MS,
    );

    it(
      'is translated to an Anthropic channel’s Messages',
      async () => {
        const user = await fixture.user({ quota: QUOTA });
        anthropic.reply = 'Hello from the Anthropic double, for Gemini CLI.';
        anthropic.usage = { input_tokens: 1100, output_tokens: 25 };
        const { answer, seen, sent } = await observe(anthropic, () => geminiCli(user, CLAUDE));
        expect(answer.text).toBe(anthropic.reply);
        expect(answer.usage).toEqual({ input: 1100, output: 25 });
        expect(posts(seen).map((call) => call.url)).toEqual(
          sent.map(() => `/v1beta/models/${CLAUDE}:streamGenerateContent?alt=sse`),
        );
        expect(sent.length).toBeGreaterThan(0);
        for (const request of sent) {
          expect(request.path).toBe('/v1/messages');
          expect(request.json).toMatchObject({ model: CLAUDE, stream: true });
          expect((request.json?.['tools'] as unknown[]).length).toBeGreaterThan(3);
        }
        await expectBilled(user, 'anthropic', CLAUDE, { input: 1100, output: 25 }, sent.length);
      },
      TEST_MS,
    );
  });
});
