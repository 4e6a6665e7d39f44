import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { nowSeconds } from '../../../lib/time.js';
import type { ParsedResponse, UpstreamErrorInfo, Usage } from '../adaptor.js';
import { parseOpenAiStyleError } from '../openai-errors.js';
import {
  chatCompletion,
  replyText,
  usageOf,
  type ChoiceOut,
  type FinishReason,
  type ToolCall,
} from '../openai-chat-response.js';

const count = z.number().nullish();

const part = z.looseObject({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  functionCall: z
    .looseObject({ id: z.string().optional(), name: z.string(), args: z.unknown().optional() })
    .optional(),
});

const candidate = z.looseObject({
  index: z.number().optional(),
  content: z.looseObject({ parts: z.array(part).default([]) }).optional(),
  finishReason: z.string().optional(),
});

export const geminiResponse = z.looseObject({
  candidates: z.array(candidate).default([]),
  usageMetadata: z
    .looseObject({
      promptTokenCount: count,
      candidatesTokenCount: count,
      thoughtsTokenCount: count,
      cachedContentTokenCount: count,
    })
    .optional(),
  responseId: z.string().optional(),
  promptFeedback: z.looseObject({ blockReason: z.string().optional() }).optional(),
});

export type GeminiResponse = z.infer<typeof geminiResponse>;
type Candidate = z.infer<typeof candidate>;

const FINISH: Readonly<Record<string, FinishReason>> = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
};

/** STOP→stop, MAX_TOKENS→length, safety reasons→content_filter; a reply with calls → tool_calls. */
export const geminiFinishReason = (
  reason: string | undefined,
  hasToolCalls: boolean,
): FinishReason | null => {
  if (!reason) return null;
  const mapped = FINISH[reason] ?? 'stop';
  return hasToolCalls && mapped === 'stop' ? 'tool_calls' : mapped;
};

/** Gemini's calls carry no id (older models): OpenAI needs one to pair results with calls. */
export const newCallId = (): string => `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`;

/**
 * Usage: prompt = promptTokenCount (which counts the cached content, read from the cache:
 * cachedContentTokenCount); completion = candidates + thoughts; undefined when absent.
 */
export const geminiUsage = (response: GeminiResponse): Usage | undefined => {
  const metadata = response.usageMetadata;
  if (!metadata) return undefined;
  const prompt = metadata.promptTokenCount ?? 0;
  const completion = (metadata.candidatesTokenCount ?? 0) + (metadata.thoughtsTokenCount ?? 0);
  const read = Math.min(metadata.cachedContentTokenCount ?? 0, prompt);
  return prompt + completion > 0 ? usageOf(prompt, completion, { read, write: 0 }) : undefined;
};

/** A candidate's visible text (thought summaries left out) and function calls. */
export const candidateParts = (candidate: Candidate): { content: string; toolCalls: ToolCall[] } => {
  let content = '';
  const toolCalls: ToolCall[] = [];
  for (const item of candidate.content?.parts ?? []) {
    if (typeof item.text === 'string' && item.thought !== true) content += item.text;
    if (item.functionCall)
      toolCalls.push({
        id: item.functionCall.id || newCallId(),
        type: 'function',
        function: { name: item.functionCall.name, arguments: JSON.stringify(item.functionCall.args ?? {}) },
      });
  }
  return { content, toolCalls };
};

/** A generateContent response as a `chat.completion`, one choice per candidate. */
export const parseGeminiResponse = (body: unknown, model: string): ParsedResponse => {
  const parsed = geminiResponse.safeParse(body);
  const response = parsed.success ? parsed.data : geminiResponse.parse({});
  const choices: ChoiceOut[] = response.candidates.map((item, position) => {
    const { content, toolCalls } = candidateParts(item);
    return {
      index: item.index ?? position,
      content,
      toolCalls,
      finishReason: geminiFinishReason(item.finishReason ?? 'STOP', toolCalls.length > 0),
    };
  });
  if (choices.length === 0)
    choices.push({
      index: 0,
      content: '',
      toolCalls: [],
      finishReason: response.promptFeedback?.blockReason ? 'content_filter' : 'stop',
    });
  const usage = geminiUsage(response);
  const id = `chatcmpl-${response.responseId || randomUUID().replaceAll('-', '')}`;
  return {
    body: chatCompletion(id, model, nowSeconds(), choices, usage),
    ...(usage ? { usage } : {}),
    text: choices.map((choice) => replyText(choice.content, choice.toolCalls)).join(''),
  };
};

const geminiError = z.looseObject({
  error: z.looseObject({
    code: z.number().optional(),
    message: z.string().default(''),
    status: z.string().optional(),
  }),
});

/** `{error:{code, message, status}}` (also inside a JSON array) → type and code = status. */
export const parseGeminiError = (body: unknown): UpstreamErrorInfo | undefined => {
  const parsed = geminiError.safeParse(Array.isArray(body) ? body[0] : body);
  if (parsed.success && parsed.data.error.message !== '') {
    const { code, message, status } = parsed.data.error;
    return {
      message,
      type: status || 'upstream_error',
      code: status || (code === undefined ? '' : String(code)),
    };
  }
  return parseOpenAiStyleError(body);
};
