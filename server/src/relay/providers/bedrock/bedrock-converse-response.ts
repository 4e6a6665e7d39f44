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

/** Converse's usage: input (uncached), output, and the cache reads and writes beside them. */
export const converseUsage = z.looseObject({
  inputTokens: count,
  outputTokens: count,
  totalTokens: count,
  cacheReadInputTokens: count,
  cacheWriteInputTokens: count,
});

/** A usage in OpenAI's terms: every input token in prompt_tokens, the cache's said apart. */
export const usageOfConverse = (usage: z.infer<typeof converseUsage>): Usage => {
  const read = usage.cacheReadInputTokens ?? 0;
  const write = usage.cacheWriteInputTokens ?? 0;
  return usageOf((usage.inputTokens ?? 0) + read + write, usage.outputTokens ?? 0, { read, write });
};

const block = z.looseObject({
  text: z.string().optional(),
  toolUse: z
    .looseObject({ toolUseId: z.string().default(''), name: z.string().default(''), input: z.unknown() })
    .optional(),
});

const converseAnswer = z.looseObject({
  output: z
    .looseObject({
      message: z.looseObject({ content: z.array(block).catch([]) }).optional(),
    })
    .optional(),
  stopReason: z.string().nullish(),
  usage: converseUsage.nullish(),
});

/** Converse's stop reasons as OpenAI's finish reasons. */
export const converseFinishReason = (stopReason: string | null | undefined): FinishReason | null => {
  switch (stopReason) {
    case undefined:
    case null:
      return null;
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content_filter';
    default:
      return 'stop';
  }
};

const argumentsOf = (input: unknown): string => JSON.stringify(input ?? {});

/** A Converse answer as a `chat.completion` (Bedrock gives it no id: one is made from the time). */
export const parseConverseResponse = (body: unknown, model: string, id: string): ParsedResponse => {
  const parsed = converseAnswer.safeParse(body);
  const answer = parsed.success ? parsed.data : converseAnswer.parse({});
  let content = '';
  const toolCalls: ToolCall[] = [];
  for (const part of answer.output?.message?.content ?? []) {
    if (part.text) content += part.text;
    if (part.toolUse)
      toolCalls.push({
        id: part.toolUse.toolUseId,
        type: 'function',
        function: { name: part.toolUse.name, arguments: argumentsOf(part.toolUse.input) },
      });
  }
  const usage = answer.usage ? usageOfConverse(answer.usage) : undefined;
  return {
    body: chatCompletion(
      id,
      model,
      nowSeconds(),
      [{ index: 0, content, toolCalls, finishReason: converseFinishReason(answer.stopReason) ?? 'stop' }],
      usage,
    ),
    ...(usage ? { usage } : {}),
    text: replyText(content, toolCalls),
  };
};

const awsError = z.looseObject({
  message: z.string().optional(),
  Message: z.string().optional(),
  __type: z.string().optional(),
});

/**
 * Bedrock's errors: `{"message": …}` (`{"Message": …}` from some front ends), the exception's name
 * in the `x-amzn-ErrorType` header or a `__type` field; Anthropic's own shape inside a Claude
 * answer, and OpenAI-style bodies from a proxy, are read too.
 */
export const parseBedrockError = (body: unknown): UpstreamErrorInfo | undefined => {
  const parsed = awsError.safeParse(body);
  const message = parsed.success ? parsed.data.message || parsed.data.Message || '' : '';
  if (message !== '') {
    const type = exceptionName(parsed.data?.__type ?? '') || 'upstream_error';
    return { message, type, code: type };
  }
  return parseOpenAiStyleError(body);
};

/** `ValidationException:http://internal.amazon.com/coral/…` or `com.amazon…#ThrottlingException` → the name. */
export const exceptionName = (value: string): string => value.split(':')[0]?.split('#').at(-1)?.trim() ?? '';
