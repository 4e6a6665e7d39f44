import { z } from 'zod';
import { parseJson } from '@sluice/contract/parse-json';
import { nowSeconds } from '../../../lib/time.js';
import type { ParsedResponse, RelayRequestMeta, StreamStep, TranslatingAdaptor } from '../adaptor.js';
import { wholeBodyDecoder } from '../body-decoders.js';
import { chatChunk, chatCompletion, usageOf } from '../openai-chat-response.js';
import { contentText, readChatRequest } from '../openai-chat-request.js';
import { parseOpenAiStyleError } from '../openai-errors.js';

/** The target language of a model named `deepl-<lang>` (`deepl-zh` → ZH); ZH without a suffix, as one-api. */
export const targetLangOf = (model: string): string => (model.split('-')[1] ?? 'ZH').toUpperCase();

/** The text translated: the last message's, as one-api took it. */
const promptOf = (body: Readonly<Record<string, unknown>>): string =>
  contentText(readChatRequest(body).messages.at(-1)?.content);

const translation = z.looseObject({
  translations: z.array(z.looseObject({ text: z.string().default('') })).default([]),
});

const textOf = (body: unknown): string | undefined => {
  const parsed = translation.safeParse(body);
  return parsed.success ? (parsed.data.translations[0]?.text ?? '') : undefined;
};

/** As one-api counts it: the prompt is the text's length in bytes, no completion tokens. */
const usageFor = (meta: RelayRequestMeta) => usageOf(Buffer.byteLength(promptOf(meta.body)), 0);

const idOf = (meta: RelayRequestMeta): string => `chatcmpl-deepl-${meta.channel.id}-${nowSeconds()}`;

const parseDeepL = (body: unknown, meta: RelayRequestMeta): ParsedResponse => {
  const text = textOf(body) ?? '';
  const usage = usageFor(meta);
  return {
    body: chatCompletion(
      idOf(meta),
      meta.model,
      nowSeconds(),
      [{ index: 0, content: text, toolCalls: [], finishReason: 'stop' }],
      usage,
    ),
    usage,
    text,
  };
};

/**
 * DeepL (channel type 38): `POST <base>/v2/translate` with `Authorization: DeepL-Auth-Key <key>`; the
 * free or pro API by the base URL (api-free.deepl.com by default, api.deepl.com for a pro key). The
 * last message is translated into the model's language and answered as a chat completion; a stream
 * is that one answer as one chunk, then [DONE] (DeepL does not stream).
 */
export const deeplAdaptor: TranslatingAdaptor = {
  kind: 'translating',
  modes: ['chat'],
  buildRequest: (body, meta) => ({
    url: `${meta.channel.baseUrl}/v2/translate`,
    headers: { authorization: `DeepL-Auth-Key ${meta.channel.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text: [promptOf(body)], target_lang: targetLangOf(meta.model) }),
  }),
  parseResponse: parseDeepL,
  decodeStream: () => wholeBodyDecoder(),
  translateStream: (meta) => {
    const created = nowSeconds();
    return (event): StreamStep => {
      const data = parseJson(event.data);
      const text = textOf(data);
      if (text === undefined) {
        const error = parseOpenAiStyleError(data);
        return error ? { chunks: [], done: true, error } : { chunks: [] };
      }
      const chunk = chatChunk(idOf(meta), meta.model, created, [
        { index: 0, delta: { role: 'assistant', content: text }, finishReason: 'stop' },
      ]);
      return { chunks: [chunk], usage: usageFor(meta), text, done: true };
    };
  },
  parseError: parseOpenAiStyleError,
};
