import { parseJson } from '@sluice/contract/parse-json';
import { nowSeconds } from '../../../lib/time.js';
import type { RelayRequestMeta, SseEvent, StreamStep, StreamTranslator } from '../adaptor.js';
import { chatChunk, type ChunkDelta } from '../openai-chat-response.js';
import { parseOpenAiStyleError } from '../openai-errors.js';
import { choiceText, readUsage } from '../openai-usage.js';
import { ZHIPU_META_EVENT } from './zhipu-v3-events.js';

/** The chunk without its usage: the relay sends the usage once, in its own chunk, when asked. */
const withoutUsage = (data: object): object => {
  if (!('usage' in data)) return data;
  const { usage: _usage, ...rest } = data as Record<string, unknown>;
  return rest;
};

/** v4 streams OpenAI's chunks: passed on as they came, the usage read, `[DONE]` ends them. */
const v4Step = (event: SseEvent): StreamStep => {
  if (event.data === '[DONE]') return { chunks: [], done: true };
  const data = parseJson(event.data);
  if (typeof data !== 'object' || data === null) return { chunks: [] };
  if ('error' in data && !('choices' in data)) {
    const error = parseOpenAiStyleError(data);
    return { chunks: [], done: true, ...(error ? { error } : {}) };
  }
  const usage = readUsage((data as { usage?: unknown }).usage);
  const choices = (data as { choices?: unknown }).choices;
  const text = choiceText(data);
  return {
    chunks: Array.isArray(choices) && choices.length > 0 ? [withoutUsage(data)] : [],
    ...(usage ? { usage } : {}),
    ...(text ? { text } : {}),
  };
};

/** The `meta:` of v3's finishing event: `{task_status, usage, task_id, request_id}`. */
const v3Usage = (data: string) => readUsage((parseJson(data) as { usage?: unknown } | undefined)?.usage);

/**
 * One Zhipu stream's translator. v4 (glm-*): OpenAI chunks. v3 (chatglm_* `sse-invoke`, read by
 * zhipu-v3-events.ts): `event: add` with the text as data, `event: finish` ending it (its data is
 * text too, as one-api reads it) after the `meta` event the decoder made of its `meta:` field (the
 * usage, billed; counted locally only when it never came), `event: error` / `interrupted` with the
 * message as data.
 */
export const createZhipuStreamTranslator = (meta: RelayRequestMeta, v3: boolean): StreamTranslator => {
  if (!v3) return v4Step;
  const state = { started: false, created: nowSeconds(), id: 'chatcmpl-zhipu' };
  return (event) => {
    if (event.event === 'error' || event.event === 'interrupted')
      return {
        chunks: [],
        done: true,
        error: { message: event.data || event.event, type: 'zhipu_error', code: event.event },
      };
    if (event.event === ZHIPU_META_EVENT) {
      const usage = v3Usage(event.data);
      return { chunks: [], ...(usage ? { usage } : {}) };
    }
    const finish = event.event === 'finish';
    if (event.event !== 'add' && !finish) return { chunks: [] };
    const text = event.data;
    const delta: ChunkDelta = {};
    if (!state.started) delta.role = 'assistant';
    if (text !== '' || !state.started) delta.content = text;
    state.started = true;
    return {
      chunks: [
        chatChunk(state.id, meta.model, state.created, [
          { index: 0, delta, finishReason: finish ? 'stop' : null },
        ]),
      ],
      ...(text ? { text } : {}),
      ...(finish ? { done: true } : {}),
    };
  };
};
