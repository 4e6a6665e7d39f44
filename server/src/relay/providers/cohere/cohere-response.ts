import { z } from 'zod';
import { nowSeconds } from '../../../lib/time.js';
import type { ParsedResponse, UpstreamErrorInfo, Usage } from '../adaptor.js';
import { parseOpenAiStyleError } from '../openai-errors.js';
import {
  chatCompletion,
  replyText,
  usageOf,
  type FinishReason,
  type ToolCall,
} from '../openai-chat-response.js';

const count = z.number().nullish();
const units = z.looseObject({ input_tokens: count, output_tokens: count }).nullish();

/** Cohere's usage (v2 `usage`, v1 `meta`): billed units, and the tokens the model saw. */
export const cohereUsage = z.looseObject({ billed_units: units, tokens: units });

/** The usage billed: Cohere's billed units (one-api's rule), else its token counts. */
export const cohereUsageOf = (usage: z.infer<typeof cohereUsage> | null | undefined): Usage | undefined => {
  const billed = usage?.billed_units ?? usage?.tokens;
  if (!billed) return undefined;
  return usageOf(billed.input_tokens ?? 0, billed.output_tokens ?? 0);
};

const FINISH: Readonly<Record<string, FinishReason>> = {
  COMPLETE: 'stop',
  STOP_SEQUENCE: 'stop',
  MAX_TOKENS: 'length',
  ERROR_LIMIT: 'length',
  TOOL_CALL: 'tool_calls',
  ERROR_TOXIC: 'content_filter',
};

export const cohereFinishOf = (reason: string | null | undefined): FinishReason =>
  (reason && FINISH[reason]) || 'stop';

export const cohereToolCall = z.looseObject({
  id: z.string().default(''),
  function: z.looseObject({ name: z.string().default(''), arguments: z.string().default('') }).optional(),
});

const v2Response = z.looseObject({
  id: z.string().default(''),
  finish_reason: z.string().nullish(),
  message: z
    .looseObject({
      content: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })).nullish(),
      tool_calls: z.array(cohereToolCall).nullish(),
    })
    .nullish(),
  usage: cohereUsage.nullish(),
});

const answered = (
  id: string,
  model: string,
  content: string,
  toolCalls: ToolCall[],
  finish: FinishReason,
  usage: Usage | undefined,
): ParsedResponse => ({
  body: chatCompletion(
    `chatcmpl-${id}`,
    model,
    nowSeconds(),
    [{ index: 0, content, toolCalls, finishReason: finish }],
    usage,
  ),
  ...(usage ? { usage } : {}),
  text: replyText(content, toolCalls),
});

/** A v2 chat answer as a `chat.completion`: text parts joined, tool calls as OpenAI's. */
export const parseCohereResponse = (body: unknown, model: string): ParsedResponse => {
  const parsed = v2Response.safeParse(body);
  const answer = parsed.success ? parsed.data : v2Response.parse({});
  const content = (answer.message?.content ?? [])
    .filter((part) => part.type === 'text')
    .map((part) => part.text ?? '')
    .join('');
  const toolCalls: ToolCall[] = (answer.message?.tool_calls ?? []).map((call) => ({
    id: call.id,
    type: 'function',
    function: { name: call.function?.name ?? '', arguments: call.function?.arguments || '{}' },
  }));
  return answered(
    answer.id,
    model,
    content,
    toolCalls,
    cohereFinishOf(answer.finish_reason),
    cohereUsageOf(answer.usage),
  );
};

export const v1Response = z.looseObject({
  response_id: z.string().default(''),
  generation_id: z.string().nullish(),
  text: z.string().default(''),
  finish_reason: z.string().nullish(),
  meta: cohereUsage.nullish(),
});

/** A v1 chat answer (a `-internet` model) as a `chat.completion`. */
export const parseCohereV1Response = (body: unknown, model: string): ParsedResponse => {
  const parsed = v1Response.safeParse(body);
  const answer = parsed.success ? parsed.data : v1Response.parse({});
  return answered(
    answer.response_id || (answer.generation_id ?? ''),
    model,
    answer.text,
    [],
    cohereFinishOf(answer.finish_reason),
    cohereUsageOf(answer.meta),
  );
};

/** Cohere's errors are `{id?, message}` (OpenAI-style readers take them). */
export const parseCohereError = (body: unknown): UpstreamErrorInfo | undefined => parseOpenAiStyleError(body);
