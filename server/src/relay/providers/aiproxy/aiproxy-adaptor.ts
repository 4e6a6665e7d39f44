import { z } from 'zod';
import { parseJson } from '@sluice/contract/parse-json';
import { relayError } from '../../../lib/app-error.js';
import { nowSeconds } from '../../../lib/time.js';
import type { ParsedResponse, RelayRequestMeta, StreamStep, TranslatingAdaptor } from '../adaptor.js';
import { chatChunk, chatCompletion, type ChunkDelta, type FinishReason } from '../openai-chat-response.js';
import { contentText, readChatRequest } from '../openai-chat-request.js';
import { parseOpenAiStyleError } from '../openai-errors.js';

const documents = z
  .array(z.looseObject({ title: z.string().default(''), url: z.string().default('') }))
  .nullish();
type Documents = z.infer<typeof documents>;

/** The cited documents as Markdown, after the answer (one-api's rendering). */
export const documentsMarkdown = (docs: Documents): string =>
  docs && docs.length > 0
    ? `\n\n参考文档：\n${docs.map((doc, index) => `${index + 1}. [${doc.title}](${doc.url})\n`).join('')}`
    : '';

const answer = z.looseObject({
  success: z.boolean().optional(),
  answer: z.string().default(''),
  documents,
  errCode: z.number().nullish(),
  message: z.string().nullish(),
});

const streamEvent = z.looseObject({
  content: z.string().default(''),
  finish: z.boolean().optional(),
  documents,
});

const idOf = (): string => `chatcmpl-aiproxy-${nowSeconds()}`;

/** The answer and its documents; no usage (the relay counts it locally, as one-api). */
const parseLibrary = (body: unknown, meta: RelayRequestMeta): ParsedResponse => {
  const parsed = answer.safeParse(body);
  if (!parsed.success || parsed.data.errCode || parsed.data.success === false) {
    const error = parseOpenAiStyleError(body);
    throw relayError(502, 'aiproxy_library_error', error?.message ?? 'the knowledge base answered nothing');
  }
  const content = parsed.data.answer + documentsMarkdown(parsed.data.documents);
  return {
    body: chatCompletion(
      idOf(),
      meta.model,
      nowSeconds(),
      [{ index: 0, content, toolCalls: [], finishReason: 'stop' }],
      undefined,
    ),
    text: content,
  };
};

/**
 * AI Proxy's knowledge base (channel type 21): `POST <base>/api/library/ask` with Bearer, the last
 * message as `query` and the channel's `config.library_id` (one-api's legacy `other`). The answer and
 * its cited documents come back as Markdown; streams are `data:` events of content, the documents
 * last. Usage is counted locally.
 */
export const aiProxyLibraryAdaptor: TranslatingAdaptor = {
  kind: 'translating',
  modes: ['chat'],
  buildRequest: (body, meta) => ({
    url: `${meta.channel.baseUrl}/api/library/ask`,
    headers: {
      authorization: `Bearer ${meta.channel.key}`,
      'content-type': 'application/json',
      ...(meta.stream ? { accept: 'text/event-stream' } : {}),
    },
    body: JSON.stringify({
      model: meta.model,
      query: contentText(readChatRequest(body).messages.at(-1)?.content),
      libraryId: meta.channel.config['library_id'] ?? '',
      stream: meta.stream,
    }),
  }),
  parseResponse: parseLibrary,
  translateStream: (meta) => {
    const id = idOf();
    const created = nowSeconds();
    let docs: Documents;
    let started = false;
    const chunk = (delta: ChunkDelta, finish: FinishReason | null = null) =>
      chatChunk(id, meta.model, created, [{ index: 0, delta, finishReason: finish }]);
    return (event): StreamStep => {
      const data = parseJson(event.data);
      const parsed = streamEvent.safeParse(data);
      const failed = typeof data === 'object' && data !== null && 'errCode' in data && Boolean(data.errCode);
      if (!parsed.success || failed) {
        const error = parseOpenAiStyleError(data);
        return error ? { chunks: [], done: true, error } : { chunks: [] };
      }
      if (parsed.data.documents?.length) docs = parsed.data.documents;
      const text = parsed.data.content;
      const chunks: unknown[] = [];
      if (text !== '') chunks.push(chunk(started ? { content: text } : { role: 'assistant', content: text }));
      started ||= text !== '';
      if (!parsed.data.finish) return { chunks, text };
      const cited = documentsMarkdown(docs);
      chunks.push(chunk(cited === '' ? {} : { content: cited }, 'stop'));
      return { chunks, text: text + cited, done: true };
    };
  },
  parseError: parseOpenAiStyleError,
};
