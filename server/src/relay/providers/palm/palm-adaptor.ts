import { z } from 'zod';
import { parseJson } from '@sluice/contract/parse-json';
import { nowSeconds } from '../../../lib/time.js';
import { relayError } from '../../../lib/app-error.js';
import type { ParsedResponse, RelayRequestMeta, StreamStep, TranslatingAdaptor } from '../adaptor.js';
import { wholeBodyDecoder } from '../body-decoders.js';
import { chatChunk, chatCompletion } from '../openai-chat-response.js';
import { contentText, readChatRequest } from '../openai-chat-request.js';
import { parseOpenAiStyleError } from '../openai-errors.js';

/** PaLM 2's only chat model: every PaLM channel calls it, whatever its model is named (PaLM-2). */
export const PALM_CHAT_MODEL = 'chat-bison-001';

/** The generateMessage body: every message as {author: '0' for the user, '1' otherwise, content}. */
const palmBody = (body: Record<string, unknown>): Record<string, unknown> => {
  const request = readChatRequest(body);
  return {
    prompt: {
      messages: request.messages.map((message) => ({
        author: message.role === 'user' ? '0' : '1',
        content: contentText(message.content),
      })),
    },
    ...(typeof request.temperature === 'number' ? { temperature: request.temperature } : {}),
    ...(typeof request.top_p === 'number' ? { topP: request.top_p } : {}),
    ...(typeof request.top_k === 'number' ? { topK: request.top_k } : {}),
    ...(typeof request.n === 'number' ? { candidateCount: request.n } : {}),
  };
};

const palmAnswer = z.looseObject({
  candidates: z.array(z.looseObject({ content: z.string().default('') })).default([]),
  filters: z
    .array(z.looseObject({ reason: z.string().optional(), message: z.string().optional() }))
    .nullish(),
});

/** The candidates' texts, or why there are none (PaLM's filters). */
const readPalm = (body: unknown): { texts: string[] } | { blocked: string } => {
  const parsed = palmAnswer.safeParse(body);
  const answer = parsed.success ? parsed.data : palmAnswer.parse({});
  if (answer.candidates.length > 0) return { texts: answer.candidates.map((candidate) => candidate.content) };
  const filter = answer.filters?.[0];
  return { blocked: filter?.message || filter?.reason || 'PaLM answered no candidate' };
};

const idOf = (): string => `chatcmpl-palm-${nowSeconds()}`;

/** The answer, without usage: PaLM reports none, the relay counts it locally (as one-api). */
const parsePalm = (body: unknown, meta: RelayRequestMeta): ParsedResponse => {
  const read = readPalm(body);
  if ('blocked' in read) throw relayError(400, 'palm_no_candidate', read.blocked, 'upstream_error');
  const choices = read.texts.map((content, index) => ({
    index,
    content,
    toolCalls: [],
    finishReason: 'stop' as const,
  }));
  return {
    body: chatCompletion(idOf(), meta.model, nowSeconds(), choices, undefined),
    text: read.texts.join(''),
  };
};

/**
 * Google PaLM 2 (channel type 11), as one-api called it: `POST <base>/v1beta2/models/chat-bison-001:
 * generateMessage` with `x-goog-api-key`. PaLM does not stream: a stream is the one answer as one
 * chunk, then [DONE]. Google retired the API, so an old channel answers or fails with Google's error.
 */
export const palmAdaptor: TranslatingAdaptor = {
  kind: 'translating',
  modes: ['chat'],
  buildRequest: (body, meta) => ({
    url: `${meta.channel.baseUrl}/v1beta2/models/${PALM_CHAT_MODEL}:generateMessage`,
    headers: { 'x-goog-api-key': meta.channel.key, 'content-type': 'application/json' },
    body: JSON.stringify(palmBody(body)),
  }),
  parseResponse: parsePalm,
  decodeStream: () => wholeBodyDecoder(),
  translateStream: (meta) => {
    const created = nowSeconds();
    return (event): StreamStep => {
      const data = parseJson(event.data);
      const error = parseOpenAiStyleError(data);
      if (error) return { chunks: [], done: true, error };
      const read = readPalm(data);
      if ('blocked' in read)
        return { chunks: [], done: true, error: { message: read.blocked, type: 'upstream_error', code: '' } };
      const id = idOf();
      const chunks = read.texts.map((content, index) =>
        chatChunk(id, meta.model, created, [
          { index, delta: { role: 'assistant', content }, finishReason: 'stop' },
        ]),
      );
      return { chunks, text: read.texts.join(''), done: true };
    };
  },
  parseError: parseOpenAiStyleError,
};
