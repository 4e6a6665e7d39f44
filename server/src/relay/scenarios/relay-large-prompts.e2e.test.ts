import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnthropicDouble, type AnthropicDouble } from '../../test-support/anthropic-double.js';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import { consumeLogs, gpt4oCost, relayPost } from '../../test-support/relay-helpers.js';
import { startRelayFixture, type RelayFixture } from '../../test-support/relay-fixture.js';

/**
 * A coding agent's prompt: about 100k tokens in a few messages (the relay reads such a body by its
 * skeleton, request/json-skeleton.ts, and never decodes its text on a pass-through).
 */
const agentPrompt = () => {
  const file = Array.from(
    { length: 12_000 },
    (_, line) => `const line${line} = "é\\u00e9 ✓ \\"q\\" ${line}";`,
  ).join('\n');
  return {
    model: 'gpt-4o',
    stream: false,
    max_tokens: 256,
    temperature: 0.2,
    tools: [
      { type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: {} } } },
    ],
    messages: [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: `Here is the file:\n${file}` },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: file },
      { role: 'user', content: 'Now fix it.' },
    ],
  };
};

describe('relay: 100k-token prompts', () => {
  let fixture: RelayFixture;
  let openai: OpenAiDouble;
  let anthropic: AnthropicDouble;
  beforeAll(async () => {
    openai = await startOpenAiDouble();
    anthropic = await startAnthropicDouble();
    fixture = await startRelayFixture('sqlite');
    await fixture.channel({ name: 'openai', base_url: openai.url, models: 'gpt-4o' });
    await fixture.channel({
      name: 'mapped',
      base_url: openai.url,
      models: 'gpt-4o-mapped',
      model_mapping: JSON.stringify({ 'gpt-4o-mapped': 'gpt-4o' }),
    });
    await fixture.channel({
      name: 'claude',
      type: CHANNEL_TYPE.anthropic,
      key: 'sk-ant-secret-key-000',
      base_url: anthropic.url,
      models: 'claude-sonnet-4-5',
    });
  });
  afterAll(async () => {
    await fixture?.close();
    await openai?.close();
    await anthropic?.close();
  });

  it('passes the body upstream byte for byte, answers byte for byte, and bills the usage', async () => {
    const user = await fixture.user({ quota: 100_000_000 });
    const body = Buffer.from(JSON.stringify(agentPrompt()));
    expect(body.byteLength).toBeGreaterThan(400_000);
    openai.usage = { prompt_tokens: 101_234, completion_tokens: 56 };
    const answer = await relayPost(fixture, user.key, '/v1/chat/completions', body.toString('utf8'));
    expect(answer.status).toBe(200);
    const sent = openai.requests.at(-1);
    expect(sent?.body.equals(body)).toBe(true);
    expect((answer.json['usage'] as { prompt_tokens: number }).prompt_tokens).toBe(101_234);
    await fixture.test.sluice.idle();
    const logs = await consumeLogs(fixture.test.sluice.database.db, user.userId);
    expect(logs.map((log) => [log.prompt_tokens, log.quota])).toEqual([[101_234, gpt4oCost(101_234, 56)]]);
  });

  it('streams: the body goes up as sent but for the request for usage, and the client is billed', async () => {
    const user = await fixture.user({ quota: 100_000_000 });
    const prompt = { ...agentPrompt(), stream: true };
    openai.usage = { prompt_tokens: 100_000, completion_tokens: 7 };
    const answer = await relayPost(fixture, user.key, '/v1/chat/completions', JSON.stringify(prompt));
    expect(answer.text).toContain('data: [DONE]');
    expect(answer.text).not.toContain('"usage":{');
    const sent = openai.requests.at(-1)?.json;
    expect(sent).toEqual({ stream_options: { include_usage: true }, ...prompt });
    await fixture.test.sluice.idle();
    const logs = await consumeLogs(fixture.test.sluice.database.db, user.userId);
    expect(logs.map((log) => log.quota)).toEqual([gpt4oCost(100_000, 7)]);
  });

  it('parses the whole body where it must be rewritten: a mapped model, a translating channel', async () => {
    const user = await fixture.user({ quota: 100_000_000 });
    const prompt = agentPrompt();
    const mapped = await relayPost(
      fixture,
      user.key,
      '/v1/chat/completions',
      JSON.stringify({ ...prompt, model: 'gpt-4o-mapped' }),
    );
    expect(mapped.status).toBe(200);
    expect(openai.requests.at(-1)?.json).toEqual({ ...prompt, model: 'gpt-4o' });
    const claude = await relayPost(
      fixture,
      user.key,
      '/v1/chat/completions',
      JSON.stringify({ ...prompt, model: 'claude-sonnet-4-5' }),
    );
    expect(claude.status).toBe(200);
    const messages = (anthropic.requests.at(-1)?.json?.['messages'] ?? []) as { content: unknown }[];
    const sentText = JSON.stringify(messages);
    // The file's text (with its escapes) reached Anthropic's body in full, twice: the user's and the tool result.
    expect(sentText.split('const line11999').length - 1).toBe(2);
  });

  it('refuses a large body that is not a chat request with the usual 400, billing nothing', async () => {
    const user = await fixture.user({ quota: 100_000_000 });
    const { messages, ...rest } = agentPrompt();
    const refused = await relayPost(
      fixture,
      user.key,
      '/v1/chat/completions',
      JSON.stringify({ ...rest, messages: messages.map(({ role: _role, ...message }) => message) }),
    );
    expect(refused.status).toBe(400);
    expect(refused.json.error?.message).toContain('every message needs a role');
    const cut = await relayPost(
      fixture,
      user.key,
      '/v1/chat/completions',
      JSON.stringify(agentPrompt()).slice(0, -1),
    );
    expect(cut.status).toBe(400);
    await fixture.test.sluice.idle();
    expect(await consumeLogs(fixture.test.sluice.database.db, user.userId)).toEqual([]);
  });
});
