import { z } from 'zod';
import { parseJson } from '@sluice/contract/parse-json';
import { nowSeconds } from '../../../lib/time.js';
import type { RelayRequestMeta, SseEvent, StreamStep, StreamTranslator, Usage } from '../adaptor.js';
import { chatChunk, type ChunkDelta, type FinishReason } from '../openai-chat-response.js';
import {
  cohereFinishOf,
  cohereToolCall,
  cohereUsage,
  cohereUsageOf,
  parseCohereError,
  v1Response,
} from './cohere-response.js';

const NOTHING: StreamStep = { chunks: [] };

const v2Event = z.looseObject({
  type: z.string().optional(),
  id: z.string().optional(),
  index: z.number().optional(),
  delta: z
    .looseObject({
      message: z
        .looseObject({
          content: z.looseObject({ text: z.string().optional() }).nullish(),
          tool_calls: cohereToolCall.partial().nullish(),
        })
        .nullish(),
      finish_reason: z.string().nullish(),
      error: z.string().nullish(),
      usage: cohereUsage.nullish(),
    })
    .nullish(),
});

const chunkMaker = (meta: RelayRequestMeta) => {
  const created = nowSeconds();
  let id = '';
  return {
    setId: (value: string | undefined) => {
      if (value) id = value;
    },
    chunk: (delta: ChunkDelta, finishReason: FinishReason | null = null) =>
      chatChunk(`chatcmpl-${id}`, meta.model, created, [{ index: 0, delta, finishReason }]),
  };
};

/**
 * Cohere's v2 chat stream: message-start → the role chunk; content-delta → text; tool-call-start
 * and tool-call-delta → tool call deltas (by the event's index); message-end → the finish reason and
 * the billed usage, or the provider's error when its finish reason is ERROR.
 */
export const cohereStreamTranslator = (meta: RelayRequestMeta): StreamTranslator => {
  const { setId, chunk } = chunkMaker(meta);
  let usage: Usage | undefined;
  return (event: SseEvent): StreamStep => {
    const data = parseJson(event.data);
    const parsed = v2Event.safeParse(data);
    if (!parsed.success) return NOTHING;
    const value = parsed.data;
    const message = value.delta?.message;
    switch (value.type ?? event.event) {
      case 'message-start':
        setId(value.id);
        return { chunks: [chunk({ role: 'assistant', content: '' })] };
      case 'content-delta': {
        const text = message?.content?.text ?? '';
        return text === '' ? NOTHING : { chunks: [chunk({ content: text })], text };
      }
      case 'tool-call-start': {
        const call = message?.tool_calls;
        const name = call?.function?.name ?? '';
        const args = call?.function?.arguments ?? '';
        const index = value.index ?? 0;
        const delta = {
          index,
          id: call?.id ?? '',
          type: 'function' as const,
          function: { name, arguments: args },
        };
        return { chunks: [chunk({ tool_calls: [delta] })], text: name + args };
      }
      case 'tool-call-delta': {
        const args = message?.tool_calls?.function?.arguments ?? '';
        if (args === '') return NOTHING;
        const delta = { index: value.index ?? 0, function: { arguments: args } };
        return { chunks: [chunk({ tool_calls: [delta] })], text: args };
      }
      case 'message-end': {
        usage = cohereUsageOf(value.delta?.usage) ?? usage;
        const reason = value.delta?.finish_reason;
        const withUsage = usage ? { usage } : {};
        if (reason === 'ERROR' || value.delta?.error)
          return {
            chunks: [],
            done: true,
            error: {
              message: value.delta?.error || 'the model failed',
              type: 'upstream_error',
              code: 'ERROR',
            },
            ...withUsage,
          };
        return { chunks: [chunk({}, cohereFinishOf(reason))], done: true, ...withUsage };
      }
      default: {
        // Not an event of the stream: an error body sent in its place.
        const error = value.type === undefined ? parseCohereError(data) : undefined;
        return error ? { chunks: [], done: true, error } : NOTHING;
      }
    }
  };
};

const v1Event = z.looseObject({
  event_type: z.string().optional(),
  generation_id: z.string().optional(),
  text: z.string().optional(),
  finish_reason: z.string().nullish(),
  response: v1Response.nullish(),
});

/** Cohere's v1 chat stream (JSON lines; a `-internet` model): text-generation → text, stream-end → usage. */
export const cohereV1StreamTranslator = (meta: RelayRequestMeta): StreamTranslator => {
  const { setId, chunk } = chunkMaker(meta);
  return (event: SseEvent): StreamStep => {
    const data = parseJson(event.data);
    const parsed = v1Event.safeParse(data);
    if (!parsed.success) return NOTHING;
    const value = parsed.data;
    switch (value.event_type) {
      case 'stream-start':
        setId(value.generation_id);
        return { chunks: [chunk({ role: 'assistant', content: '' })] };
      case 'text-generation': {
        const text = value.text ?? '';
        return text === '' ? NOTHING : { chunks: [chunk({ content: text })], text };
      }
      case 'stream-end': {
        const usage = cohereUsageOf(value.response?.meta);
        if (value.finish_reason === 'ERROR')
          return {
            chunks: [],
            done: true,
            error: {
              message: value.response?.text || 'the model failed',
              type: 'upstream_error',
              code: 'ERROR',
            },
            ...(usage ? { usage } : {}),
          };
        return {
          chunks: [chunk({}, cohereFinishOf(value.finish_reason))],
          done: true,
          ...(usage ? { usage } : {}),
        };
      }
      default: {
        const error = value.event_type === undefined ? parseCohereError(data) : undefined;
        return error ? { chunks: [], done: true, error } : NOTHING;
      }
    }
  };
};
