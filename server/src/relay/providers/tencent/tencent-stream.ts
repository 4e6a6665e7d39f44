import { randomUUID } from 'node:crypto';
import { parseJson } from '@sluice/contract/parse-json';
import { nowSeconds } from '../../../lib/time.js';
import type { RelayRequestMeta, SseEvent, StreamStep } from '../adaptor.js';
import { chatChunk, replyText, type ChunkChoice, type ChunkDelta } from '../openai-chat-response.js';
import {
  parseTencentError,
  tencentChat,
  tencentFinishReason,
  toolCallsOf,
  unwrap,
  usageOfTencent,
} from './tencent-response.js';

/** What one Hunyuan stream remembers between events. */
export interface TencentStreamState {
  id: string;
  created: number;
  started: boolean;
  /** Tool calls sent so far (their OpenAI indexes continue from there when Hunyuan gives none). */
  calls: number;
}

export const createTencentStreamState = (): TencentStreamState => ({
  id: '',
  created: 0,
  started: false,
  calls: 0,
});

/**
 * Maps one ChatCompletions stream event (`data: {Id, Created, Choices[{Delta, FinishReason}],
 * Usage, Note}`; Usage is the running total) to one chunk. Hunyuan sends no end marker: the stream
 * ends with the body. An event carrying `Error` ends the stream with it.
 */
export const mapTencentStreamEvent = (
  event: SseEvent,
  state: TencentStreamState,
  meta: RelayRequestMeta,
): StreamStep => {
  const data = parseJson(event.data);
  if (data === undefined) return { chunks: [] };
  const error = parseTencentError(data);
  if (error) return { chunks: [], done: true, error };
  const parsed = tencentChat.safeParse(unwrap(data));
  if (!parsed.success) return { chunks: [] };
  const answer = parsed.data;
  if (!state.id) {
    state.id = `chatcmpl-${answer.Id || randomUUID().replaceAll('-', '')}`;
    state.created = answer.Created ?? nowSeconds();
  }
  const usage = usageOfTencent(answer.Usage);
  let text = '';
  const choices: ChunkChoice[] = (answer.Choices ?? []).map((choice, position) => {
    const content = choice.Delta?.Content ?? '';
    const toolCalls = toolCallsOf(choice.Delta?.ToolCalls);
    const indexes = (choice.Delta?.ToolCalls ?? []).map((call, offset) => call.Index ?? state.calls + offset);
    state.calls += toolCalls.length;
    text += replyText(content, toolCalls);
    const delta: ChunkDelta = {};
    if (!state.started) delta.role = 'assistant';
    if (content !== '' || !state.started) delta.content = content;
    if (toolCalls.length > 0)
      delta.tool_calls = toolCalls.map((call, offset) => ({ index: indexes[offset] ?? offset, ...call }));
    return {
      index: choice.Index ?? position,
      delta,
      finishReason: tencentFinishReason(choice.FinishReason, state.calls > 0),
    };
  });
  if (choices.length > 0) state.started = true;
  return {
    chunks: choices.length > 0 ? [chatChunk(state.id, meta.model, state.created, choices)] : [],
    ...(usage ? { usage } : {}),
    ...(text ? { text } : {}),
  };
};
