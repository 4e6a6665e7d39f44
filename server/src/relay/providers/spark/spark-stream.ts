import { parseJson } from '@sluice/contract/parse-json';
import { nowSeconds } from '../../../lib/time.js';
import type { RelayRequestMeta, SseEvent, StreamStep } from '../adaptor.js';
import { chatChunk, replyText, type ChunkDelta } from '../openai-chat-response.js';
import { frameParts, frameUsage, parseSparkError, sparkFrame } from './spark-response.js';

export interface SparkStreamState {
  id: string;
  readonly created: number;
  started: boolean;
  calls: number;
}

export const createSparkStreamState = (): SparkStreamState => ({
  id: '',
  created: nowSeconds(),
  started: false,
  calls: 0,
});

/**
 * Maps one answer frame (given by the WebSocket transport as an SSE `data:` event) to one chunk:
 * `payload.choices.text[].content` and function calls as the delta, `header.status` 2 as the end
 * (finish reason stop, or tool_calls), `payload.usage.text` as the usage. A frame with a non-zero
 * `header.code` ends the stream with Spark's error.
 */
export const mapSparkFrame = (
  event: SseEvent,
  state: SparkStreamState,
  meta: RelayRequestMeta,
): StreamStep => {
  const data = parseJson(event.data);
  const error = parseSparkError(data);
  if (error) return { chunks: [], done: true, error };
  const parsed = sparkFrame.safeParse(data);
  if (!parsed.success) return { chunks: [] };
  const frame = parsed.data;
  if (!state.id) state.id = `chatcmpl-${frame.header.sid}`;
  const { content, toolCalls } = frameParts(frame);
  const last = frame.header.status === 2;
  const delta: ChunkDelta = {};
  if (!state.started) delta.role = 'assistant';
  if (content !== '' || !state.started) delta.content = content;
  if (toolCalls.length > 0)
    delta.tool_calls = toolCalls.map((call, offset) => ({ index: state.calls + offset, ...call }));
  state.calls += toolCalls.length;
  state.started = true;
  const usage = frameUsage(frame);
  const text = replyText(content, toolCalls);
  const finishReason = last ? (state.calls > 0 ? 'tool_calls' : 'stop') : null;
  return {
    chunks: [chatChunk(state.id, meta.model, state.created, [{ index: 0, delta, finishReason }])],
    ...(usage ? { usage } : {}),
    ...(text ? { text } : {}),
    ...(last ? { done: true } : {}),
  };
};
