import { parseJson } from '@sluice/contract/parse-json';
import { nowSeconds } from '../../../lib/time.js';
import type { RelayRequestMeta, SseEvent, StreamStep, StreamTranslator } from '../adaptor.js';
import { chatChunk, replyText, type ChunkDelta } from '../openai-chat-response.js';
import { aliAnswer, aliFinishReason, aliUsage, parseAliError, toolCallsOf } from './ali-response.js';

/**
 * One DashScope stream's translator (`X-DashScope-SSE: enable`, `incremental_output: true`): each
 * `event:result` carries the new text of its choices and the usage so far; `finish_reason` is the
 * string "null" until the last. An `event:error` (or a data without output but with code) ends it.
 */
export const createAliStreamTranslator = (meta: RelayRequestMeta): StreamTranslator => {
  const state = { id: '', started: false, created: nowSeconds(), tools: 0 };
  return (event: SseEvent): StreamStep => {
    const data = parseJson(event.data);
    if (typeof data !== 'object' || data === null) return { chunks: [] };
    if (event.event === 'error' || ('code' in data && !('output' in data))) {
      const error = parseAliError(data);
      return { chunks: [], done: true, ...(error ? { error } : {}) };
    }
    const parsed = aliAnswer.safeParse(data);
    if (!parsed.success) return { chunks: [] };
    const answer = parsed.data;
    if (!state.id) state.id = `chatcmpl-${answer.request_id || 'ali'}`;
    const usage = aliUsage(answer.usage);
    let text = '';
    const choices = (answer.output?.choices ?? []).map((choice, index) => {
      const content = choice.message?.content ?? '';
      const calls = toolCallsOf(choice.message?.tool_calls);
      text += replyText(content, calls);
      const delta: ChunkDelta = {};
      if (!state.started) delta.role = 'assistant';
      if (content !== '' || !state.started) delta.content = content;
      if (calls.length > 0) {
        delta.tool_calls = calls.map((call, offset) => ({ index: state.tools + offset, ...call }));
        state.tools += calls.length;
      }
      return { index, delta, finishReason: aliFinishReason(choice.finish_reason) };
    });
    if (choices.length > 0) state.started = true;
    return {
      chunks: choices.length > 0 ? [chatChunk(state.id, meta.model, state.created, choices)] : [],
      ...(usage ? { usage } : {}),
      ...(text ? { text } : {}),
    };
  };
};
