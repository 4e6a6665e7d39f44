import { z } from 'zod';
import { relayError } from '../../../lib/app-error.js';
import { nowSeconds } from '../../../lib/time.js';
import type { ParsedResponse, RelayRequestMeta, UpstreamErrorInfo, Usage } from '../adaptor.js';
import { chatCompletion, type FinishReason } from '../openai-chat-response.js';
import { parseOpenAiStyleError } from '../openai-errors.js';
import { readUsage } from '../openai-usage.js';

const baiduError = z.looseObject({
  error_code: z.union([z.number(), z.string()]),
  error_msg: z.string().min(1),
});

/** Wenxin's error `{error_code, error_msg}` (often with HTTP 200), else an OpenAI-style one (v2). */
export const parseBaiduError = (body: unknown): UpstreamErrorInfo | undefined => {
  const parsed = baiduError.safeParse(body);
  if (parsed.success)
    return { message: parsed.data.error_msg, type: 'baidu_error', code: String(parsed.data.error_code) };
  return parseOpenAiStyleError(body);
};

/** The HTTP status a Wenxin error code stands for (they come with 200). */
const statusOfCode = (code: string): number => {
  if (['4', '17', '18', '19', '336501', '336502'].includes(code)) return 429;
  if (['6', '13', '14', '15', '110', '111'].includes(code)) return 401;
  if (code.startsWith('336')) return 400;
  return 500;
};

/** A 2xx body that is a Wenxin error: thrown as the upstream's error (no key in it: Baidu quotes none). */
export const throwIfBaiduError = (body: unknown): void => {
  const parsed = baiduError.safeParse(body);
  if (!parsed.success) return;
  const code = String(parsed.data.error_code);
  throw relayError(statusOfCode(code), code, parsed.data.error_msg, 'baidu_error');
};

const chatAnswer = z.looseObject({
  id: z.string().default(''),
  created: z.number().optional(),
  result: z.string().default(''),
  finish_reason: z.string().optional(),
  usage: z.unknown().optional(),
});

/** Wenxin's `finish_reason` (normal, stop, length, content_filter, function_call). */
export const baiduFinishReason = (reason: string | undefined): FinishReason => {
  if (reason === 'length') return 'length';
  if (reason === 'content_filter') return 'content_filter';
  return 'stop';
};

const isOpenAiShaped = (body: unknown): boolean =>
  typeof body === 'object' && body !== null && ('choices' in body || 'data' in body) && !('result' in body);

/** A Wenxin chat answer `{id, result, usage}` as a `chat.completion` (a v2 answer is OpenAI's already). */
export const parseBaiduResponse = (body: unknown, meta: RelayRequestMeta): ParsedResponse => {
  throwIfBaiduError(body);
  if (isOpenAiShaped(body)) {
    const usage = readUsage((body as { usage?: unknown }).usage);
    const choices = (body as { choices?: { message?: { content?: unknown } }[] }).choices ?? [];
    const text = choices
      .map((choice) => (typeof choice.message?.content === 'string' ? choice.message.content : ''))
      .join('');
    return { body, ...(usage ? { usage } : {}), text };
  }
  const parsed = chatAnswer.safeParse(body);
  const answer = parsed.success ? parsed.data : chatAnswer.parse({});
  const usage: Usage | undefined = readUsage(answer.usage);
  return {
    body: chatCompletion(
      answer.id ? `chatcmpl-${answer.id}` : 'chatcmpl-baidu',
      meta.model,
      answer.created ?? nowSeconds(),
      [
        {
          index: 0,
          content: answer.result,
          toolCalls: [],
          finishReason: baiduFinishReason(answer.finish_reason),
        },
      ],
      usage,
    ),
    ...(usage ? { usage } : {}),
    text: answer.result,
  };
};

const embeddingsAnswer = z.looseObject({
  data: z.array(z.looseObject({ embedding: z.array(z.number()), index: z.number().optional() })).default([]),
  usage: z.unknown().optional(),
});

/** A vector as OpenAI's base64 encoding: little-endian float32. */
const base64Of = (values: readonly number[]): string => {
  const buffer = Buffer.alloc(values.length * 4);
  values.forEach((value, index) => buffer.writeFloatLE(value, index * 4));
  return buffer.toString('base64');
};

/** Wenxin's embeddings answer `{data:[{embedding,index}], usage}` as OpenAI's list (base64 when asked). */
export const parseBaiduEmbeddings = (body: unknown, meta: RelayRequestMeta): ParsedResponse => {
  throwIfBaiduError(body);
  const parsed = embeddingsAnswer.safeParse(body);
  const answer = parsed.success ? parsed.data : embeddingsAnswer.parse({});
  const usage = readUsage(answer.usage);
  const base64 = meta.body['encoding_format'] === 'base64';
  return {
    body: {
      object: 'list',
      data: answer.data.map((item, position) => ({
        object: 'embedding',
        index: item.index ?? position,
        embedding: base64 ? base64Of(item.embedding) : item.embedding,
      })),
      model: meta.model,
      usage: { prompt_tokens: usage?.prompt_tokens ?? 0, total_tokens: usage?.total_tokens ?? 0 },
    },
    ...(usage ? { usage } : {}),
    text: '',
  };
};
