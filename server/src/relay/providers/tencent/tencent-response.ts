import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { relayError, type AppError } from '../../../lib/app-error.js';
import { nowSeconds } from '../../../lib/time.js';
import type { ParsedResponse, RelayRequestMeta, UpstreamErrorInfo, Usage } from '../adaptor.js';
import {
  chatCompletion,
  replyText,
  usageOf,
  type FinishReason,
  type ToolCall,
} from '../openai-chat-response.js';

const count = z.number().nullish();

export const tencentUsage = z.looseObject({
  PromptTokens: count,
  CompletionTokens: count,
  TotalTokens: count,
});

export const tencentToolCall = z.looseObject({
  Id: z.string().nullish(),
  Index: z.number().nullish(),
  Function: z.looseObject({ Name: z.string().nullish(), Arguments: z.string().nullish() }).nullish(),
});

const message = z.looseObject({
  Content: z.string().nullish(),
  ToolCalls: z.array(tencentToolCall).nullish(),
});

export const tencentChoice = z.looseObject({
  FinishReason: z.string().nullish(),
  Index: z.number().nullish(),
  Message: message.nullish(),
  Delta: message.nullish(),
});

const errorShape = z.looseObject({ Code: z.string().default(''), Message: z.string().default('') });

/** A ChatCompletions answer, or one stream event (the same fields, `Delta` for `Message`). */
export const tencentChat = z.looseObject({
  Id: z.string().nullish(),
  Created: z.number().nullish(),
  Choices: z.array(tencentChoice).nullish(),
  Usage: tencentUsage.nullish(),
  Error: errorShape.nullish(),
});

const embedding = z.looseObject({
  Data: z
    .array(z.looseObject({ Embedding: z.array(z.number()).nullish(), Index: z.number().nullish() }))
    .nullish(),
  Usage: tencentUsage.nullish(),
  Error: errorShape.nullish(),
});

/** Hunyuan's answer under `Response` (a stream event's fields come at the top). */
const envelope = z.looseObject({ Response: z.unknown() });

/** `Response`'s content when the body has one, else the body itself. */
export const unwrap = (body: unknown): unknown => {
  const parsed = envelope.safeParse(body);
  return parsed.success && parsed.data.Response !== undefined ? parsed.data.Response : body;
};

/** stop → stop, sensitive → content_filter, tool_calls → tool_calls, length → length. */
export const tencentFinishReason = (
  reason: string | null | undefined,
  hasCalls: boolean,
): FinishReason | null => {
  if (!reason) return null;
  if (reason === 'sensitive') return 'content_filter';
  if (reason === 'length') return 'length';
  return hasCalls || reason === 'tool_calls' ? 'tool_calls' : 'stop';
};

export const usageOfTencent = (usage: z.infer<typeof tencentUsage> | null | undefined): Usage | undefined => {
  if (!usage) return undefined;
  const prompt = usage.PromptTokens ?? 0;
  const completion = usage.CompletionTokens ?? Math.max(0, (usage.TotalTokens ?? 0) - prompt);
  return prompt + completion > 0 ? usageOf(prompt, completion) : undefined;
};

export const toolCallsOf = (
  calls: readonly z.infer<typeof tencentToolCall>[] | null | undefined,
): ToolCall[] =>
  (calls ?? []).map((call) => ({
    id: call.Id || `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
    type: 'function',
    function: { name: call.Function?.Name ?? '', arguments: call.Function?.Arguments ?? '' },
  }));

/** Tencent Cloud's `{Response:{Error:{Code, Message}, RequestId}}` (or the error at the top, in a stream). */
export const parseTencentError = (body: unknown): UpstreamErrorInfo | undefined => {
  const inner = unwrap(body);
  if (typeof inner !== 'object' || inner === null || !('Error' in inner)) return undefined;
  const parsed = errorShape.safeParse(inner.Error);
  if (!parsed.success || parsed.data.Message === '') return undefined;
  return { message: parsed.data.Message, type: 'tencent_error', code: parsed.data.Code };
};

/** An HTTP status for Tencent's error codes (its API answers errors with a 200). */
const statusOf = (code: string): number => {
  if (code.startsWith('AuthFailure')) return 401;
  if (code.startsWith('UnauthorizedOperation')) return 403;
  if (code.includes('LimitExceeded')) return 429;
  if (/^(InvalidParameter|MissingParameter|UnknownParameter|InvalidAction|UnsupportedOperation)/.test(code))
    return 400;
  if (code.startsWith('ResourceNotFound')) return 404;
  return 500;
};

/** The channel key's parts must never reach the client, even when the provider quotes one. */
const scrubbed = (text: string, meta: RelayRequestMeta): string =>
  meta.channel.key
    .split('|')
    .filter((part) => part.length >= 6)
    .reduce((out, secret) => out.split(secret).join('[redacted]'), text);

/** A 200 answer that is Tencent's error: thrown as the client's error at Tencent's status. */
const answeredError = (info: UpstreamErrorInfo, meta: RelayRequestMeta): AppError =>
  relayError(statusOf(info.code), scrubbed(info.code, meta), scrubbed(info.message, meta), 'tencent_error');

/** A ChatCompletions answer as a `chat.completion`. */
export const parseTencentChat = (body: unknown, meta: RelayRequestMeta): ParsedResponse => {
  const error = parseTencentError(body);
  if (error) throw answeredError(error, meta);
  const parsed = tencentChat.safeParse(unwrap(body));
  const answer = parsed.success ? parsed.data : tencentChat.parse({});
  const choices = (answer.Choices ?? []).map((choice, position) => {
    const toolCalls = toolCallsOf(choice.Message?.ToolCalls);
    return {
      index: choice.Index ?? position,
      content: choice.Message?.Content ?? '',
      toolCalls,
      finishReason: tencentFinishReason(choice.FinishReason || 'stop', toolCalls.length > 0),
    };
  });
  if (choices.length === 0) choices.push({ index: 0, content: '', toolCalls: [], finishReason: 'stop' });
  const usage = usageOfTencent(answer.Usage);
  const id = `chatcmpl-${answer.Id || randomUUID().replaceAll('-', '')}`;
  return {
    body: chatCompletion(id, meta.model, answer.Created ?? nowSeconds(), choices, usage),
    ...(usage ? { usage } : {}),
    text: choices.map((choice) => replyText(choice.content, choice.toolCalls)).join(''),
  };
};

/** A vector as OpenAI's base64 encoding: little-endian float32. */
const base64Of = (values: readonly number[]): string => {
  const buffer = Buffer.alloc(values.length * 4);
  values.forEach((value, index) => buffer.writeFloatLE(value, index * 4));
  return buffer.toString('base64');
};

/** A GetEmbedding answer as OpenAI's embeddings list (base64 when asked), billed on Hunyuan's PromptTokens. */
export const parseTencentEmbedding = (body: unknown, meta: RelayRequestMeta): ParsedResponse => {
  const error = parseTencentError(body);
  if (error) throw answeredError(error, meta);
  const parsed = embedding.safeParse(unwrap(body));
  const answer = parsed.success ? parsed.data : embedding.parse({});
  const usage = usageOfTencent(answer.Usage);
  const base64 = meta.body['encoding_format'] === 'base64';
  return {
    body: {
      object: 'list',
      data: (answer.Data ?? []).map((item, position) => ({
        object: 'embedding',
        index: item.Index ?? position,
        embedding: base64 ? base64Of(item.Embedding ?? []) : (item.Embedding ?? []),
      })),
      model: meta.model,
      usage: { prompt_tokens: usage?.prompt_tokens ?? 0, total_tokens: usage?.total_tokens ?? 0 },
    },
    ...(usage ? { usage } : {}),
    text: '',
  };
};
