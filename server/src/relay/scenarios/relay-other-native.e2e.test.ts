import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { LOG_TYPE } from '@sluice/contract/statuses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtherNativeDouble, type OtherNativeDouble } from '../../test-support/other-native-doubles.js';
import { startRelayFixture, type RelayFixture } from '../../test-support/relay-fixture.js';

describe('relay: Cohere and DeepL channels through the openai SDK', () => {
  let fixture: RelayFixture;
  let double: OtherNativeDouble;
  beforeAll(async () => {
    double = await startOtherNativeDouble();
    fixture = await startRelayFixture('sqlite');
    await fixture.channel({
      name: 'cohere',
      type: CHANNEL_TYPE.cohere,
      key: double.cohereKey,
      base_url: double.url,
      models: 'command-r,command-fail,embed-english-v3.0',
    });
    await fixture.channel({
      name: 'deepl',
      type: CHANNEL_TYPE.deepL,
      key: double.deeplKey,
      base_url: double.url,
      models: 'deepl-de',
    });
    for (const [name, type, models] of [
      ['coze', CHANNEL_TYPE.coze, 'bot-7379462189365198898'],
      ['palm', CHANNEL_TYPE.palm, 'PaLM-2'],
      ['library', CHANNEL_TYPE.aiProxyLibrary, 'library-gpt'],
    ] as const)
      await fixture.channel({ name, type, key: double.cohereKey, base_url: double.url, models });
  });
  afterAll(async () => {
    await fixture?.close();
    await double?.close();
  });

  const logOf = async (userId: number) => {
    await fixture.test.sluice.idle();
    return fixture.test.sluice.database.db
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', userId)
      .where('type', '=', LOG_TYPE.consume)
      .executeTakeFirst();
  };

  it('Cohere: chat billed by the billed units, a stream, tools, embeddings, an upstream error', async () => {
    const user = await fixture.user();
    const chat = await user.sdk.chat.completions.create({
      model: 'command-r',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(chat.choices[0]?.message.content).toBe('Hello there!');
    expect(chat.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 7 });
    expect(await logOf(user.userId)).toMatchObject({ prompt_tokens: 11, completion_tokens: 7 });

    let text = '';
    for await (const chunk of await user.sdk.chat.completions.create({
      model: 'command-r',
      stream: true,
      messages: [{ role: 'user', content: 'Hi' }],
    }))
      text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Hello there!');

    const tool = await user.sdk.chat.completions.create({
      model: 'command-r',
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
    });
    expect(tool.choices[0]?.finish_reason).toBe('tool_calls');
    expect(tool.choices[0]?.message.tool_calls?.[0]).toMatchObject({ function: { name: 'get_weather' } });

    const embedding = await user.sdk.embeddings.create({ model: 'embed-english-v3.0', input: 'hello' });
    // The SDK asks for base64 (float32): the vector read back as float32.
    expect(embedding.data[0]?.embedding.map((value) => Math.round(value * 1000) / 1000)).toEqual([0.1, 0.2]);

    await expect(
      user.sdk.chat.completions.create({
        model: 'command-fail',
        messages: [{ role: 'user', content: 'Hi' }],
      }),
    ).rejects.toMatchObject({ status: 429 });
  });

  it('DeepL: the translation as a chat completion and as one chunk, the prompt billed in bytes', async () => {
    const user = await fixture.user();
    const chat = await user.sdk.chat.completions.create({
      model: 'deepl-de',
      messages: [{ role: 'user', content: 'Hello, world!' }],
    });
    expect(chat.choices[0]?.message.content).toBe('Hallo, Welt!');
    expect(await logOf(user.userId)).toMatchObject({ prompt_tokens: 13, completion_tokens: 0 });
    let text = '';
    for await (const chunk of await user.sdk.chat.completions.create({
      model: 'deepl-de',
      stream: true,
      messages: [{ role: 'user', content: 'Hello, world!' }],
    }))
      text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Hallo, Welt!');
  });

  it.each([
    ['Coze', 'bot-7379462189365198898', 'Bot says hi'],
    ['PaLM 2', 'PaLM-2', 'PaLM says hi'],
    ['the AI Proxy knowledge base', 'library-gpt', 'Library says hi\n\n参考文档：\n1. [Doc](https://d)\n'],
  ])('%s: chat and stream, billed by the reported or the locally counted usage', async (_, model, answer) => {
    const user = await fixture.user();
    const chat = await user.sdk.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(chat.choices[0]?.message.content).toBe(answer);
    const log = await logOf(user.userId);
    expect(log?.completion_tokens).toBeGreaterThan(0);
    expect(log?.quota).toBeGreaterThan(0);
    let text = '';
    for await (const chunk of await user.sdk.chat.completions.create({
      model,
      stream: true,
      messages: [{ role: 'user', content: 'Hi' }],
    }))
      text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(answer);
  });
});
