import { randomUUID } from 'node:crypto';
import { nowSeconds } from '../../../lib/time.js';
import type { RelayRequestMeta, SseEvent, StreamStep } from '../adaptor.js';
import { chatChunk, replyText, type ChunkChoice, type ChunkDelta } from '../openai-chat-response.js';
import {
  candidateParts,
  geminiFinishReason,
  geminiResponse,
  geminiUsage,
  parseGeminiError,
} from './gemini-response.js';
import { parseJson } from '@sluice/contract/parse-json';

/** What one Gemini stream remembers between events. */
export interface GeminiStreamState {
  id: string;
  readonly created: number;
  /** The role goes in the first chunk only. */
  started: boolean;
  /** Candidate index → tool calls sent so far (their OpenAI indexes continue from there). */
  readonly toolCounts: Map<number, number>;
}

export const createGeminiStreamState = (): GeminiStreamState => ({
  id: '',
  created: nowSeconds(),
  started: false,
  toolCounts: new Map(),
});

const isErrorEvent = (data: unknown): boolean =>
  typeof data === 'object' && data !== null && 'error' in data && !('candidates' in data);

/**
 * Maps one streamGenerateContent (alt=sse) event — a whole GenerateContentResponse — to one chunk
 * with a choice per candidate. Usage is the last usageMetadata seen. Gemini sends no end marker:
 * the stream ends with the HTTP body. An `{error}` event ends the stream with that error.
 */
export const mapGeminiStreamEvent = (
  event: SseEvent,
  state: GeminiStreamState,
  meta: RelayRequestMeta,
): StreamStep => {
  const data = parseJson(event.data);
  if (data === undefined) return { chunks: [] };
  if (isErrorEvent(data)) {
    const error = parseGeminiError(data);
    return { chunks: [], done: true, ...(error ? { error } : {}) };
  }
  const parsed = geminiResponse.safeParse(data);
  if (!parsed.success) return { chunks: [] };
  const response = parsed.data;
  if (!state.id) state.id = `chatcmpl-${response.responseId || randomUUID().replaceAll('-', '')}`;
  const usage = geminiUsage(response);
  let text = '';
  const choices: ChunkChoice[] = response.candidates.map((candidate, position) => {
    const index = candidate.index ?? position;
    const { content, toolCalls } = candidateParts(candidate);
    const sent = state.toolCounts.get(index) ?? 0;
    if (toolCalls.length > 0) state.toolCounts.set(index, sent + toolCalls.length);
    text += replyText(content, toolCalls);
    const delta: ChunkDelta = {};
    if (!state.started) delta.role = 'assistant';
    if (content !== '' || !state.started) delta.content = content;
    if (toolCalls.length > 0)
      delta.tool_calls = toolCalls.map((call, offset) => ({ index: sent + offset, ...call }));
    return {
      index,
      delta,
      finishReason: geminiFinishReason(candidate.finishReason, (state.toolCounts.get(index) ?? 0) > 0),
    };
  });
  if (choices.length === 0 && response.promptFeedback?.blockReason)
    choices.push({
      index: 0,
      delta: state.started ? {} : { role: 'assistant', content: '' },
      finishReason: 'content_filter',
    });
  if (choices.length > 0) state.started = true;
  return {
    chunks: choices.length > 0 ? [chatChunk(state.id, meta.model, state.created, choices)] : [],
    ...(usage ? { usage } : {}),
    ...(text ? { text } : {}),
  };
};
