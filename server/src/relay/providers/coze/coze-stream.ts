import { z } from 'zod';
import { parseJson } from '@sluice/contract/parse-json';
import { nowSeconds } from '../../../lib/time.js';
import type {
  RelayRequestMeta,
  SseEvent,
  StreamStep,
  StreamTranslator,
  UpstreamErrorInfo,
} from '../adaptor.js';
import { chatChunk, usageOf, type ChunkDelta, type FinishReason } from '../openai-chat-response.js';

const NOTHING: StreamStep = { chunks: [] };

const cozeMessage = z.looseObject({
  role: z.string().optional(),
  type: z.string().optional(),
  content: z.string().optional(),
});

const errorOf = (value: unknown): UpstreamErrorInfo | undefined => {
  const parsed = z
    .looseObject({ code: z.union([z.number(), z.string()]).optional(), msg: z.string() })
    .safeParse(value);
  return parsed.success && parsed.data.msg !== ''
    ? { message: parsed.data.msg, type: 'upstream_error', code: String(parsed.data.code ?? '') }
    : undefined;
};

const v3Data = z.looseObject({
  id: z.string().optional(),
  ...cozeMessage.shape,
  usage: z.looseObject({ input_count: z.number().nullish(), output_count: z.number().nullish() }).nullish(),
  last_error: z.unknown().optional(),
});

const maker = (meta: RelayRequestMeta) => {
  const created = nowSeconds();
  let id = '';
  return {
    setId: (value: string | undefined) => {
      if (value && id === '') id = value;
    },
    chunk: (delta: ChunkDelta, finish: FinishReason | null = null) =>
      chatChunk(`chatcmpl-${id}`, meta.model, created, [{ index: 0, delta, finishReason: finish }]),
  };
};

/**
 * Coze's v3 chat stream: conversation.chat.created → the role chunk; conversation.message.delta of an
 * `answer` → text; conversation.chat.completed → the finish and its usage; conversation.chat.failed
 * and error → the provider's error; done ends.
 */
export const cozeV3Translator = (meta: RelayRequestMeta): StreamTranslator => {
  const { setId, chunk } = maker(meta);
  return (event: SseEvent): StreamStep => {
    const data = parseJson(event.data);
    const parsed = v3Data.safeParse(data);
    const value = parsed.success ? parsed.data : undefined;
    switch (event.event) {
      case 'conversation.chat.created':
        setId(value?.id);
        return { chunks: [chunk({ role: 'assistant', content: '' })] };
      case 'conversation.message.delta': {
        const text = value?.type === 'answer' ? (value.content ?? '') : '';
        return text === '' ? NOTHING : { chunks: [chunk({ content: text })], text };
      }
      case 'conversation.chat.completed': {
        const usage = value?.usage;
        return {
          chunks: [chunk({}, 'stop')],
          ...(usage ? { usage: usageOf(usage.input_count ?? 0, usage.output_count ?? 0) } : {}),
        };
      }
      case 'conversation.chat.failed':
      case 'error': {
        const error = errorOf(value?.last_error ?? data) ?? {
          message: 'the bot failed',
          type: 'upstream_error',
          code: '',
        };
        return { chunks: [], done: true, error };
      }
      case 'done':
        return { chunks: [], done: true };
      default: {
        const error = event.event === '' ? errorOf(data) : undefined;
        return error ? { chunks: [], done: true, error } : NOTHING;
      }
    }
  };
};

const v2Event = z.looseObject({
  event: z.string().optional(),
  message: cozeMessage.optional(),
  conversation_id: z.string().optional(),
  error_information: z.unknown().optional(),
});

/** Coze's v2 stream, as one-api read it: `message` events of type answer → text; done; error. */
export const cozeV2Translator = (meta: RelayRequestMeta): StreamTranslator => {
  const { setId, chunk } = maker(meta);
  return (event: SseEvent): StreamStep => {
    const data = parseJson(event.data);
    const parsed = v2Event.safeParse(data);
    if (!parsed.success) return NOTHING;
    const value = parsed.data;
    setId(value.conversation_id);
    switch (value.event) {
      case 'message': {
        const text = value.message?.type === 'answer' ? (value.message.content ?? '') : '';
        return text === '' ? NOTHING : { chunks: [chunk({ role: 'assistant', content: text })], text };
      }
      case 'done':
        return { chunks: [chunk({}, 'stop')], done: true };
      default: {
        const error = errorOf(value.error_information ?? data);
        return error ? { chunks: [], done: true, error } : NOTHING;
      }
    }
  };
};

export const parseCozeError = (body: unknown): UpstreamErrorInfo | undefined => {
  const parsed = z.looseObject({ error_information: z.unknown() }).safeParse(body);
  return errorOf(parsed.success ? parsed.data.error_information : body);
};
