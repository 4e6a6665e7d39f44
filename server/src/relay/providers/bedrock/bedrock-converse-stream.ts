import { z } from 'zod';
import { parseJson } from '@sluice/contract/parse-json';
import { nowSeconds } from '../../../lib/time.js';
import type { RelayRequestMeta, SseEvent, StreamStep, Usage } from '../adaptor.js';
import { chatChunk, type ChunkDelta, type FinishReason } from '../openai-chat-response.js';
import { converseFinishReason, converseUsage, usageOfConverse } from './bedrock-converse-response.js';

/** What one ConverseStream needs to remember between events. */
export interface ConverseStreamState {
  readonly id: string;
  readonly created: number;
  usage: Usage | undefined;
  /** Content block index → OpenAI tool call index. */
  readonly toolIndexes: Map<number, number>;
}

export const createConverseStreamState = (id: string): ConverseStreamState => ({
  id,
  created: nowSeconds(),
  usage: undefined,
  toolIndexes: new Map(),
});

const streamEvent = z.looseObject({
  contentBlockIndex: z.number().optional(),
  start: z
    .looseObject({
      toolUse: z.looseObject({ toolUseId: z.string().default(''), name: z.string().default('') }).optional(),
    })
    .optional(),
  delta: z
    .looseObject({
      text: z.string().optional(),
      toolUse: z.looseObject({ input: z.string().optional() }).optional(),
    })
    .optional(),
  stopReason: z.string().nullish(),
  usage: converseUsage.nullish(),
});

const NOTHING: StreamStep = { chunks: [] };

/**
 * Maps one ConverseStream event to OpenAI chunks: messageStart → the role chunk; contentBlockStart
 * of a toolUse → a tool call; contentBlockDelta → content or the tool's argument text;
 * messageStop → finish_reason; metadata → the usage, and the end. (Exceptions are read by the
 * adaptor before this.)
 */
export const mapConverseStreamEvent = (
  event: SseEvent,
  state: ConverseStreamState,
  meta: RelayRequestMeta,
): StreamStep => {
  const parsed = streamEvent.safeParse(parseJson(event.data));
  if (!parsed.success) return NOTHING;
  const value = parsed.data;
  const chunk = (delta: ChunkDelta, finishReason: FinishReason | null = null) =>
    chatChunk(state.id, meta.model, state.created, [{ index: 0, delta, finishReason }]);
  switch (event.event) {
    case 'messageStart':
      return { chunks: [chunk({ role: 'assistant', content: '' })] };
    case 'contentBlockStart': {
      const tool = value.start?.toolUse;
      if (!tool) return NOTHING;
      const index = state.toolIndexes.size;
      state.toolIndexes.set(value.contentBlockIndex ?? index, index);
      return {
        chunks: [
          chunk({
            tool_calls: [
              { index, id: tool.toolUseId, type: 'function', function: { name: tool.name, arguments: '' } },
            ],
          }),
        ],
        text: tool.name,
      };
    }
    case 'contentBlockDelta': {
      const delta = value.delta;
      if (delta?.text) return { chunks: [chunk({ content: delta.text })], text: delta.text };
      const input = delta?.toolUse?.input;
      const index = state.toolIndexes.get(value.contentBlockIndex ?? -1);
      if (!input || index === undefined) return NOTHING;
      return { chunks: [chunk({ tool_calls: [{ index, function: { arguments: input } }] })], text: input };
    }
    case 'messageStop': {
      const finish = converseFinishReason(value.stopReason) ?? 'stop';
      return { chunks: [chunk({}, finish)] };
    }
    case 'metadata':
      state.usage = value.usage ? usageOfConverse(value.usage) : state.usage;
      return { chunks: [], done: true, ...(state.usage ? { usage: state.usage } : {}) };
    default:
      return NOTHING;
  }
};
