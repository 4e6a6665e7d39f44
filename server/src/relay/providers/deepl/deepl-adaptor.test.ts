import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describe, expect, it } from 'vitest';
import { fixtureMeta } from '../../../test-support/stream-replay.js';
import { deeplAdaptor } from './deepl-adaptor.js';

const body = { model: 'deepl-de', messages: [{ role: 'user', content: 'Hello, world!' }] };
const meta = (baseUrl = 'https://api-free.deepl.com', model = 'deepl-de') =>
  fixtureMeta({ type: CHANNEL_TYPE.deepL, baseUrl, key: 'dl-key:fx' }, { model, body });

describe('deepl adaptor', () => {
  it('pins the documented request: POST /v2/translate, DeepL-Auth-Key, text and target_lang', () => {
    const request = deeplAdaptor.buildRequest(body, meta());
    expect(request.url).toBe('https://api-free.deepl.com/v2/translate');
    expect(request.headers).toEqual({
      authorization: 'DeepL-Auth-Key dl-key:fx',
      'content-type': 'application/json',
    });
    expect(JSON.parse(String(request.body))).toEqual({ text: ['Hello, world!'], target_lang: 'DE' });
  });

  it('takes the pro host from the base URL, and ZH for a model without a suffix', () => {
    const request = deeplAdaptor.buildRequest(body, meta('https://api.deepl.com', 'deepl'));
    expect(request.url).toBe('https://api.deepl.com/v2/translate');
    expect(JSON.parse(String(request.body))).toMatchObject({ target_lang: 'ZH' });
  });

  it('answers the translation as a chat completion, the prompt counted in bytes', () => {
    const parsed = deeplAdaptor.parseResponse(
      { translations: [{ detected_source_language: 'EN', text: 'Hallo, Welt!' }] },
      meta(),
    );
    expect(parsed.body).toMatchObject({
      object: 'chat.completion',
      model: 'deepl-de',
      choices: [{ message: { role: 'assistant', content: 'Hallo, Welt!' }, finish_reason: 'stop' }],
    });
    expect(parsed.usage).toEqual({ prompt_tokens: 13, completion_tokens: 0, total_tokens: 13 });
  });

  it('reads its errors', () => {
    expect(deeplAdaptor.parseError({ message: 'Wrong endpoint' })?.message).toBe('Wrong endpoint');
  });
});
