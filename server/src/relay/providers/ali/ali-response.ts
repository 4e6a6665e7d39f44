import { z } from 'zod';
import { nowSeconds } from '../../../lib/time.js';
import type { ParsedResponse, RelayRequestMeta, UpstreamErrorInfo, Usage } from '../adaptor.js';
import {
  chatCompletion,
  replyText,
  usageOf,
  type FinishReason,
  type ToolCall,
} from '../openai-chat-response.js';

const aliError = z.looseObject({ code: z.string().min(1), message: z.string().min(1) });

/** DashScope's error `{code, message, request_id}`. */
export const parseAliError = (body: unknown): UpstreamErrorInfo | undefined => {
  const parsed = aliError.safeParse(body);
  return parsed.success
    ? { message: parsed.data.message, type: 'ali_error', code: parsed.data.code }
    : undefined;
};

const toolCall = z.looseObject({
  id: z.string().default(''),
  index: z.number().optional(),
  function: z.looseObject({ name: z.string().default(''), arguments: z.string().default('') }),
});

export const aliChoice = z.looseObject({
  finish_reason: z.string().nullish(),
  message: z
    .looseObject({ content: z.string().nullish(), tool_calls: z.array(toolCall).nullish() })
    .optional(),
});

export const aliAnswer = z.looseObject({
  request_id: z.string().default(''),
  output: z.looseObject({ choices: z.array(aliChoice).default([]), text: z.string().nullish() }).optional(),
  usage: z
    .looseObject({ input_tokens: z.number().default(0), output_tokens: z.number().default(0) })
    .optional(),
});

export type AliToolCall = z.infer<typeof toolCall>;

/** DashScope's finish reasons: `null` (a string, mid-stream), stop, length, tool_calls. */
export const aliFinishReason = (reason: string | null | undefined): FinishReason | null => {
  if (!reason || reason === 'null') return null;
  if (reason === 'length') return 'length';
  if (reason === 'tool_calls') return 'tool_calls';
  return 'stop';
};

export const aliUsage = (
  usage: { input_tokens: number; output_tokens: number } | undefined,
): Usage | undefined =>
  usage && usage.input_tokens + usage.output_tokens > 0
    ? usageOf(usage.input_tokens, usage.output_tokens)
    : undefined;

export const toolCallsOf = (calls: readonly AliToolCall[] | null | undefined): ToolCall[] =>
  (calls ?? []).map((call) => ({
    id: call.id,
    type: 'function',
    function: { name: call.function.name, arguments: call.function.arguments },
  }));

/** A text-generation answer (result_format message) as a `chat.completion`. */
export const parseAliResponse = (body: unknown, meta: RelayRequestMeta): ParsedResponse => {
  const parsed = aliAnswer.safeParse(body);
  const answer = parsed.success ? parsed.data : aliAnswer.parse({});
  const usage = aliUsage(answer.usage);
  let text = '';
  const choices = (answer.output?.choices ?? []).map((choice, index) => {
    const content = choice.message?.content ?? '';
    const toolCalls = toolCallsOf(choice.message?.tool_calls);
    text += replyText(content, toolCalls);
    return { index, content, toolCalls, finishReason: aliFinishReason(choice.finish_reason) ?? 'stop' };
  });
  return {
    body: chatCompletion(`chatcmpl-${answer.request_id || 'ali'}`, meta.model, nowSeconds(), choices, usage),
    ...(usage ? { usage } : {}),
    text,
  };
};

const embeddingsAnswer = z.looseObject({
  output: z
    .looseObject({
      embeddings: z
        .array(z.looseObject({ text_index: z.number().default(0), embedding: z.array(z.number()) }))
        .default([]),
    })
    .optional(),
  usage: z.looseObject({ total_tokens: z.number().default(0) }).optional(),
});

const base64Of = (values: readonly number[]): string => {
  const buffer = Buffer.alloc(values.length * 4);
  values.forEach((value, index) => buffer.writeFloatLE(value, index * 4));
  return buffer.toString('base64');
};

/** DashScope's `output.embeddings[{text_index, embedding}]` as OpenAI's list. */
export const parseAliEmbeddings = (body: unknown, meta: RelayRequestMeta): ParsedResponse => {
  const parsed = embeddingsAnswer.safeParse(body);
  const answer = parsed.success ? parsed.data : embeddingsAnswer.parse({});
  const tokens = answer.usage?.total_tokens ?? 0;
  const base64 = meta.body['encoding_format'] === 'base64';
  return {
    body: {
      object: 'list',
      data: (answer.output?.embeddings ?? []).map((item) => ({
        object: 'embedding',
        index: item.text_index,
        embedding: base64 ? base64Of(item.embedding) : item.embedding,
      })),
      model: meta.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    },
    ...(tokens > 0 ? { usage: usageOf(tokens, 0) } : {}),
    text: '',
  };
};
