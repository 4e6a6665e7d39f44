import { parseArguments } from '../../providers/openai-chat-request.js';
import type { ClientContext } from '../client-format.js';
import { camelKeys } from './gemini-wire.js';

/**
 * The hub's answer (an OpenAI `chat.completion`) as Gemini's GenerateContentResponse. The hub's own
 * output is read without zod (it is ours, and the stream writer reads every chunk the same way).
 */
type Json = Record<string, unknown>;

const objectOf = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** stop → STOP, length → MAX_TOKENS, tool_calls → STOP (Gemini ends a call turn with STOP), content_filter → SAFETY. */
export const geminiFinishReason = (reason: unknown): string => {
  if (reason === 'length') return 'MAX_TOKENS';
  if (reason === 'content_filter') return 'SAFETY';
  return 'STOP';
};

/**
 * The hub's usage as usageMetadata: Gemini counts thoughts apart from the candidates, OpenAI counts
 * reasoning tokens inside the completion, so candidates = completion − reasoning. The prompt count
 * includes the cached tokens in both.
 */
export const geminiUsageMetadata = (usage: unknown): Json | undefined => {
  const hub = objectOf(usage);
  if (!hub) return undefined;
  const prompt = count(hub['prompt_tokens']);
  const completion = count(hub['completion_tokens']);
  const cached = count(objectOf(hub['prompt_tokens_details'])?.['cached_tokens']);
  const reasoning = Math.min(
    count(objectOf(hub['completion_tokens_details'])?.['reasoning_tokens']),
    completion,
  );
  const total = count(hub['total_tokens']) || prompt + completion;
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: completion - reasoning,
    totalTokenCount: total,
    ...(cached > 0 ? { cachedContentTokenCount: cached } : {}),
    ...(reasoning > 0 ? { thoughtsTokenCount: reasoning } : {}),
  };
};

/**
 * True when the request asked for thought parts (`generationConfig.thinkingConfig.includeThoughts`):
 * Gemini sends thought summaries only then, so the hub's reasoning is answered only then.
 */
export const wantsThoughts = (request: Readonly<Record<string, unknown>>): boolean => {
  const config = objectOf(camelKeys(objectOf(camelKeys(request))?.['generationConfig']));
  const thinking = objectOf(camelKeys(config?.['thinkingConfig']));
  return thinking?.['includeThoughts'] === true;
};

/** The hub's reasoning text of a message or delta (`reasoning_content`, or `reasoning`). */
export const reasoningOf = (message: Json): string => {
  const text = message['reasoning_content'] ?? message['reasoning'];
  return typeof text === 'string' ? text : '';
};

/** A message's text: a string, or its text parts joined. */
const textOf = (content: unknown): string => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content) {
    const item = objectOf(part);
    if (item && typeof item['text'] === 'string') text += item['text'];
  }
  return text;
};

/** An OpenAI tool call as a functionCall part (arguments parsed; `{}` when they are not a JSON object). */
export const functionCallPart = (id: string, name: string, args: string): Json => ({
  functionCall: { name, args: parseArguments(args), ...(id ? { id } : {}) },
});

const partsOf = (message: Json, thoughts: boolean): Json[] => {
  const parts: Json[] = [];
  const reasoning = thoughts ? reasoningOf(message) : '';
  if (reasoning !== '') parts.push({ text: reasoning, thought: true });
  const text = textOf(message['content']);
  if (text !== '') parts.push({ text });
  const calls = message['tool_calls'];
  if (Array.isArray(calls))
    for (const item of calls) {
      const call = objectOf(item);
      const fn = objectOf(call?.['function']);
      if (!fn || typeof fn['name'] !== 'string') continue;
      const id = typeof call?.['id'] === 'string' ? call['id'] : '';
      parts.push(
        functionCallPart(id, fn['name'], typeof fn['arguments'] === 'string' ? fn['arguments'] : ''),
      );
    }
  return parts;
};

/** The response's id: the hub's completion id, else the request's. */
export const responseIdOf = (id: unknown, context: ClientContext): string =>
  typeof id === 'string' && id !== '' ? id : context.requestId;

/** A `chat.completion` as a GenerateContentResponse (one candidate per choice; Gemini CLI reads the first). */
export const geminiFromHub = (
  completion: Readonly<Record<string, unknown>>,
  context: ClientContext,
): Json => {
  const thoughts = wantsThoughts(context.request);
  const choices = Array.isArray(completion['choices']) ? completion['choices'] : [];
  const candidates = choices.map((item, position) => {
    const choice = objectOf(item) ?? {};
    const message = objectOf(choice['message']) ?? {};
    return {
      content: { parts: partsOf(message, thoughts), role: 'model' },
      finishReason: geminiFinishReason(choice['finish_reason']),
      index: typeof choice['index'] === 'number' ? choice['index'] : position,
    };
  });
  if (candidates.length === 0)
    candidates.push({ content: { parts: [], role: 'model' }, finishReason: 'STOP', index: 0 });
  const usageMetadata = geminiUsageMetadata(completion['usage']);
  return {
    candidates,
    ...(usageMetadata ? { usageMetadata } : {}),
    modelVersion: context.model,
    responseId: responseIdOf(completion['id'], context),
  };
};
