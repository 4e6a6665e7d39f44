import { z } from 'zod';
import { nowSeconds } from '../../../lib/time.js';
import type { RelayRequestMeta, SseEvent, StreamStep, Usage } from '../adaptor.js';
import {
  anthropicBlock,
  anthropicMessage,
  anthropicBilledUsage,
  anthropicInputOf,
  anthropicUsage,
  argumentsOf,
  finishReasonOf,
  NO_ANTHROPIC_INPUT,
  type AnthropicInput,
} from './anthropic-response.js';
import { parseAnthropicError } from './anthropic-response.js';
import { chatChunk, type ChunkDelta, type FinishReason } from '../openai-chat-response.js';
import { parseJson } from '@sluice/contract/parse-json';

/** What one Anthropic stream needs to remember between events. */
export interface AnthropicStreamState {
  id: string;
  readonly created: number;
  /** The input as message_start said it (message_delta may say it again). */
  input: AnthropicInput;
  /** Set by message_delta: the stream's final usage. */
  usage: Usage | undefined;
  /** Content block index → OpenAI tool call index. */
  readonly toolIndexes: Map<number, number>;
}

export const createAnthropicStreamState = (): AnthropicStreamState => ({
  id: '',
  created: nowSeconds(),
  input: NO_ANTHROPIC_INPUT,
  usage: undefined,
  toolIndexes: new Map(),
});

const streamEvent = z.looseObject({
  type: z.string().optional(),
  message: anthropicMessage.optional(),
  index: z.number().optional(),
  content_block: anthropicBlock.optional(),
  delta: z
    .looseObject({
      type: z.string().optional(),
      text: z.string().optional(),
      partial_json: z.string().optional(),
      stop_reason: z.string().nullish(),
    })
    .optional(),
  usage: anthropicUsage.nullish(),
});

type StreamEvent = z.infer<typeof streamEvent>;

const NOTHING: StreamStep = { chunks: [] };

/**
 * Maps one Anthropic stream event to OpenAI chunks: message_start → the role chunk; text and
 * tool_use blocks → content and tool_call deltas; message_delta → finish_reason and the final usage
 * (input from message_start, output from message_delta); message_stop ends; ping is ignored; an
 * `error` event ends the stream with that error (OpenAI's error event), keeping the usage counted so far.
 */
export const mapAnthropicStreamEvent = (
  event: SseEvent,
  state: AnthropicStreamState,
  meta: RelayRequestMeta,
): StreamStep => {
  const data = parseJson(event.data);
  if (data === undefined) return NOTHING;
  const parsed = streamEvent.safeParse(data);
  if (!parsed.success) return NOTHING;
  const value = parsed.data;
  const chunk = (delta: ChunkDelta, finishReason: FinishReason | null = null) =>
    chatChunk(`chatcmpl-${state.id}`, meta.model, state.created, [{ index: 0, delta, finishReason }]);

  switch (value.type ?? event.event) {
    case 'message_start':
      state.id = value.message?.id ?? state.id;
      state.input = anthropicInputOf(value.message?.usage);
      return { chunks: [chunk({ role: 'assistant', content: '' })] };
    case 'content_block_start':
      return blockStart(value, state, chunk);
    case 'content_block_delta':
      return blockDelta(value, state, chunk);
    case 'message_delta': {
      state.input = anthropicInputOf(value.usage, state.input);
      state.usage = anthropicBilledUsage(state.input, value.usage?.output_tokens ?? 0);
      const finish = finishReasonOf(value.delta?.stop_reason);
      return { chunks: finish ? [chunk({}, finish)] : [], usage: state.usage };
    }
    case 'message_stop':
      return { chunks: [], done: true, ...(state.usage ? { usage: state.usage } : {}) };
    case 'error': {
      const error = parseAnthropicError(data);
      return {
        chunks: [],
        done: true,
        ...(error ? { error } : {}),
        ...(state.usage ? { usage: state.usage } : {}),
      };
    }
    default:
      return NOTHING;
  }
};

type ChunkOf = (delta: ChunkDelta, finishReason?: FinishReason | null) => unknown;

const blockStart = (value: StreamEvent, state: AnthropicStreamState, chunk: ChunkOf): StreamStep => {
  const block = value.content_block;
  if (block?.type === 'text' && block.text)
    return { chunks: [chunk({ content: block.text })], text: block.text };
  if (block?.type !== 'tool_use') return NOTHING;
  const index = state.toolIndexes.size;
  state.toolIndexes.set(value.index ?? index, index);
  const initial =
    typeof block.input === 'object' && block.input !== null && Object.keys(block.input).length > 0
      ? argumentsOf(block.input)
      : '';
  const name = block.name ?? '';
  return {
    chunks: [
      chunk({
        tool_calls: [{ index, id: block.id ?? '', type: 'function', function: { name, arguments: initial } }],
      }),
    ],
    text: name + initial,
  };
};

const blockDelta = (value: StreamEvent, state: AnthropicStreamState, chunk: ChunkOf): StreamStep => {
  const delta = value.delta;
  if (delta?.type === 'text_delta' && delta.text)
    return { chunks: [chunk({ content: delta.text })], text: delta.text };
  if (delta?.type === 'input_json_delta' && delta.partial_json) {
    const index = state.toolIndexes.get(value.index ?? -1);
    if (index === undefined) return NOTHING;
    return {
      chunks: [chunk({ tool_calls: [{ index, function: { arguments: delta.partial_json } }] })],
      text: delta.partial_json,
    };
  }
  return NOTHING;
};
