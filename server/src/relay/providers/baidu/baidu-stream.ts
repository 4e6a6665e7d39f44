import { parseJson } from '@sluice/contract/parse-json';
import { z } from 'zod';
import { nowSeconds } from '../../../lib/time.js';
import type { RelayRequestMeta, SseEvent, StreamStep, StreamTranslator } from '../adaptor.js';
import { chatChunk, type ChunkDelta } from '../openai-chat-response.js';
import { choiceText, readUsage } from '../openai-usage.js';
import { baiduFinishReason, parseBaiduError } from './baidu-response.js';

const wenxinEvent = z.looseObject({
  id: z.string().default(''),
  result: z.string().default(''),
  is_end: z.boolean().default(false),
  finish_reason: z.string().optional(),
  usage: z.unknown().optional(),
});

/** The chunk without its usage: the relay sends the usage once, in its own chunk, when asked. */
const withoutUsage = (data: object): object => {
  if (!('usage' in data)) return data;
  const { usage: _usage, ...rest } = data as Record<string, unknown>;
  return rest;
};

/**
 * One Wenxin stream's translator. v1 events are `data: {id, sentence_id, result, is_end, usage}`
 * (the usage so far in each, the whole one in the last; `is_end` ends the answer); a v2 endpoint
 * streams OpenAI chunks, passed on as they came (its usage read, `[DONE]` ends it). An event
 * `{error_code, error_msg}` ends the stream with that error.
 */
export const createBaiduStreamTranslator = (meta: RelayRequestMeta): StreamTranslator => {
  const state = { id: '', started: false, created: nowSeconds() };
  return (event: SseEvent): StreamStep => {
    if (event.data === '[DONE]') return { chunks: [], done: true };
    const data = parseJson(event.data);
    if (typeof data !== 'object' || data === null) return { chunks: [] };
    if ('error_code' in data || ('error' in data && !('choices' in data))) {
      const error = parseBaiduError(data);
      return { chunks: [], done: true, ...(error ? { error } : {}) };
    }
    if ('choices' in data) {
      const usage = readUsage((data as { usage?: unknown }).usage);
      const choices = (data as { choices?: unknown }).choices;
      const text = choiceText(data);
      return {
        chunks: Array.isArray(choices) && choices.length > 0 ? [withoutUsage(data)] : [],
        ...(usage ? { usage } : {}),
        ...(text ? { text } : {}),
      };
    }
    const parsed = wenxinEvent.safeParse(data);
    if (!parsed.success) return { chunks: [] };
    const wenxin = parsed.data;
    if (!state.id) state.id = `chatcmpl-${wenxin.id || 'baidu'}`;
    const usage = readUsage(wenxin.usage);
    const delta: ChunkDelta = {};
    if (!state.started) delta.role = 'assistant';
    if (wenxin.result !== '' || !state.started) delta.content = wenxin.result;
    state.started = true;
    const finishReason = wenxin.is_end ? baiduFinishReason(wenxin.finish_reason) : null;
    return {
      chunks: [chatChunk(state.id, meta.model, state.created, [{ index: 0, delta, finishReason }])],
      ...(usage && usage.total_tokens > 0 ? { usage } : {}),
      ...(wenxin.result ? { text: wenxin.result } : {}),
      ...(wenxin.is_end ? { done: true } : {}),
    };
  };
};
