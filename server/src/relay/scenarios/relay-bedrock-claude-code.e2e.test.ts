import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runClaudeCode } from '../../test-support/agent-cli-runs.js';
import { CLAUDE_CODE, installCli } from '../../test-support/agent-clis.js';
import { startBedrockDouble, type BedrockDouble } from '../../test-support/bedrock-double.js';
import { listenRecordingSluice, type RecordingSluice } from '../../test-support/recording-listener.js';
import { consumeLogs, formulaCost } from '../../test-support/relay-helpers.js';
import { startRelayFixture, type RelayFixture } from '../../test-support/relay-fixture.js';

/**
 * Claude Code, headless, through Sluice to a Bedrock channel's Claude model: its Messages stream
 * passed through natively (InvokeModelWithResponseStream, SigV4 verified by the double), answered
 * with the double's text and usage, billed by the formula. Installed as relay-agent-clis.e2e.test.ts
 * installs it (once per version under the OS temp dir).
 */

const CLAUDE = 'claude-3-5-sonnet-20241022';
const CLAUDE_ID = 'anthropic.claude-3-5-sonnet-20241022-v2:0';
const QUOTA = 10_000_000;
const RUN_MS = 60_000;
const TEST_MS = 90_000;
const INSTALL_MS = 300_000;

describe(`relay: Claude Code ${CLAUDE_CODE.version} on a Bedrock Claude channel, natively`, () => {
  let fixture: RelayFixture;
  let door: RecordingSluice;
  let bedrock: BedrockDouble;
  let binary: string;
  beforeAll(async () => {
    binary = await installCli(CLAUDE_CODE);
    bedrock = await startBedrockDouble();
    // Claude Code offers its tools every turn: the double answers text, as a model that needs none.
    bedrock.callsTools = false;
    fixture = await startRelayFixture('sqlite');
    door = await listenRecordingSluice(fixture.test.sluice);
    await fixture.channel({
      name: 'bedrock',
      type: CHANNEL_TYPE.aws,
      key: bedrock.channelKey,
      base_url: bedrock.url,
      models: CLAUDE,
    });
  }, INSTALL_MS);
  afterAll(async () => {
    await door?.close();
    await fixture?.close();
    await bedrock?.close();
  });

  it(
    'passes its Messages stream through to InvokeModelWithResponseStream, every field and beta included',
    async () => {
      const user = await fixture.user({ quota: QUOTA });
      bedrock.reply = 'Hello from the Bedrock double, through Sluice.';
      bedrock.usage = { inputTokens: 1830, outputTokens: 47 };
      const doorBefore = door.requests.length;
      const upstreamBefore = bedrock.requests.length;
      const answer = await runClaudeCode({
        binary,
        baseUrl: door.url,
        key: `sk-${user.key}`,
        keyVariable: 'ANTHROPIC_API_KEY',
        model: CLAUDE,
        prompt: 'Reply with one short greeting. Do not use any tools.',
        timeoutMs: RUN_MS,
      });
      expect(answer.text).toBe(bedrock.reply);
      expect(answer.usage).toEqual({ input: 1830, output: 47 });
      const seen = door.requests.slice(doorBefore);
      expect(seen.filter((request) => (request.status ?? 0) >= 400).map((request) => request.url)).toEqual(
        [],
      );
      const calls = seen.filter(
        (request) => request.method === 'POST' && request.url === '/v1/messages?beta=true',
      );
      const sent = bedrock.requests.slice(upstreamBefore);
      expect(sent.length).toBe(calls.length);
      expect(sent.length).toBeGreaterThan(0);
      sent.forEach((request, index) => {
        const call = calls[index]!;
        const body = JSON.parse(Buffer.concat(call.body).toString('utf8')) as Record<string, unknown>;
        const { model: _model, stream, ...rest } = body;
        expect(request.modelId).toBe(CLAUDE_ID);
        expect(request.operation).toBe(stream === true ? 'invoke-with-response-stream' : 'invoke');
        const betas = String(call.headers['anthropic-beta'] ?? '')
          .split(',')
          .map((beta) => beta.trim())
          .filter((beta) => beta !== '');
        // Claude Code's body as it came (its tools, system blocks, metadata.user_id, thinking …)
        // with Bedrock's version and its betas where Bedrock reads them.
        expect(request.raw).toBe(
          JSON.stringify({
            anthropic_version: 'bedrock-2023-05-31',
            ...(betas.length > 0 && rest['anthropic_beta'] === undefined ? { anthropic_beta: betas } : {}),
            ...rest,
          }),
        );
        expect(request.body).toMatchObject({ metadata: { user_id: expect.any(String) as unknown } });
        expect(request.headers['authorization']).toMatch(/^AWS4-HMAC-SHA256 /);
      });
      await fixture.test.sluice.idle();
      const logs = await consumeLogs(fixture.test.sluice.database.db, user.userId);
      expect(logs).toHaveLength(sent.length);
      for (const log of logs)
        expect(log).toMatchObject({
          model_name: CLAUDE,
          prompt_tokens: 1830,
          completion_tokens: 47,
          quota: formulaCost(CLAUDE, CHANNEL_TYPE.aws, 1830, 47),
        });
    },
    TEST_MS,
  );
});
