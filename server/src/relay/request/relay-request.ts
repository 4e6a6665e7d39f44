import { z } from 'zod';
import { relayError } from '../../lib/app-error.js';
import { describeZodIssue } from '../../lib/zod-issue.js';
import type { ClientFormatName } from '../clients/client-format.js';
import type { RelayMode } from '../providers/adaptor.js';
import { plainMessages, readSkeleton } from './json-skeleton.js';

/** The relay's route table: mode, body kind and default model of each path. */
export interface RelayRoute {
  readonly path: string;
  readonly mode: RelayMode;
  readonly multipart?: boolean;
  readonly defaultModel?: string;
  /** The client's format when it is not OpenAI's: read into the hub and answered back in it. */
  readonly client?: Exclude<ClientFormatName, 'openai'>;
  /** The path asks for a stream whatever the body says (Gemini's `:streamGenerateContent`). */
  readonly stream?: boolean;
  /** Counts the prompt's tokens instead of relaying it (Anthropic's count_tokens, Gemini's countTokens). */
  readonly count?: boolean;
}

export const RELAY_ROUTES: readonly RelayRoute[] = [
  { path: '/v1/chat/completions', mode: 'chat' },
  { path: '/v1/completions', mode: 'completions' },
  { path: '/v1/embeddings', mode: 'embeddings' },
  { path: '/v1/engines/:model/embeddings', mode: 'embeddings' },
  { path: '/v1/moderations', mode: 'moderations', defaultModel: 'text-moderation-stable' },
  { path: '/v1/images/generations', mode: 'images', defaultModel: 'dall-e-2' },
  { path: '/v1/audio/speech', mode: 'speech' },
  { path: '/v1/audio/transcriptions', mode: 'transcription', multipart: true, defaultModel: 'whisper-1' },
  { path: '/v1/audio/translations', mode: 'translation', multipart: true, defaultModel: 'whisper-1' },
  { path: '/v1/messages', mode: 'chat', client: 'anthropic' },
  { path: '/v1/messages/count_tokens', mode: 'chat', client: 'anthropic', count: true },
  { path: '/v1/responses', mode: 'chat', client: 'responses' },
  { path: '/v1beta/models/:model:generateContent', mode: 'chat', client: 'gemini' },
  { path: '/v1beta/models/:model:streamGenerateContent', mode: 'chat', client: 'gemini', stream: true },
  { path: '/v1beta/models/:model:countTokens', mode: 'chat', client: 'gemini', count: true },
];

export interface RelayRequest {
  readonly mode: RelayMode;
  readonly path: string;
  readonly model: string;
  readonly stream: boolean;
  /**
   * The parsed JSON body (for multipart requests: the text fields). For a large chat body, only its
   * small members (json-skeleton.ts): read the whole one with `fullBody(request)`.
   */
  readonly body: Record<string, unknown>;
  /** Set when `body` holds only the small members: parses the whole body once, when asked. */
  readonly full?: (() => Record<string, unknown>) | undefined;
  /** The bytes the client sent. */
  readonly raw: Uint8Array;
  readonly contentType: string;
  /** The client asked for usage in its stream (stream_options.include_usage). */
  readonly clientWantsUsage: boolean;
  readonly maxTokens: number;
}

const MAX_TOKENS = 2 ** 30;
const decoder = new TextDecoder();

const common = {
  model: z
    .string({ error: 'model is required' })
    .trim()
    .min(1, 'model is required')
    .max(256, 'model is too long'),
  stream: z.boolean({ error: 'stream must be true or false' }).optional(),
  max_tokens: z.number().int().min(0).max(MAX_TOKENS, 'max_tokens is invalid').nullish(),
  max_completion_tokens: z
    .number()
    .int()
    .min(0)
    .max(MAX_TOKENS, 'max_completion_tokens is invalid')
    .nullish(),
};

const stringOrList = z.union([z.string(), z.array(z.unknown()).min(1)]);

export const RELAY_SCHEMAS: Record<RelayMode, z.ZodType> = {
  chat: z.looseObject({
    ...common,
    messages: z
      .array(z.looseObject({ role: z.string({ error: 'every message needs a role' }) }), {
        error: 'messages must be a list of messages',
      })
      .min(1, 'messages must not be empty'),
  }),
  completions: z.looseObject({ ...common, prompt: stringOrList }),
  embeddings: z.looseObject({ ...common, input: stringOrList }),
  moderations: z.looseObject({ ...common, input: stringOrList }),
  images: z.looseObject({
    ...common,
    prompt: z
      .string({ error: 'prompt is required' })
      .min(1, 'prompt is required')
      .max(32000, 'prompt is too long'),
    n: z.number().int().min(1).max(10, 'n must be between 1 and 10').optional(),
    size: z.string().max(32).optional(),
  }),
  speech: z.looseObject({
    ...common,
    input: z
      .string({ error: 'input is required' })
      .min(1, 'input is required')
      .max(4096, 'input is too long (at most 4096 characters)'),
  }),
  transcription: z.looseObject({ model: common.model }),
  translation: z.looseObject({ model: common.model }),
};

const isCount = (value: unknown): boolean =>
  value === undefined ||
  value === null ||
  (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= MAX_TOKENS);

/**
 * A shortcut for the hot path: true only for a chat body the chat schema certainly accepts (checked
 * against the schema by a test over many bodies). Anything else, valid or not, goes through zod,
 * which stays the one judge of what is valid and the author of every error message.
 */
export const plainlyValidChat = (body: Record<string, unknown>): boolean => {
  const model = body['model'];
  if (typeof model !== 'string') return false;
  const trimmed = model.trim().length;
  if (trimmed < 1 || trimmed > 256) return false;
  const stream = body['stream'];
  if (stream !== undefined && typeof stream !== 'boolean') return false;
  if (!isCount(body['max_tokens']) || !isCount(body['max_completion_tokens'])) return false;
  const messages = body['messages'];
  if (!Array.isArray(messages) || messages.length === 0) return false;
  for (const message of messages as unknown[])
    if (
      typeof message !== 'object' ||
      message === null ||
      Array.isArray(message) ||
      typeof (message as Record<string, unknown>)['role'] !== 'string'
    )
      return false;
  return true;
};

const invalid = (message: string) =>
  relayError(400, 'invalid_text_request', message, 'invalid_request_error');

const readMultipart = async (raw: Uint8Array, contentType: string): Promise<Record<string, unknown>> => {
  try {
    const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
    const fields: Record<string, unknown> = {};
    for (const [name, value] of form.entries()) if (typeof value === 'string') fields[name] = value;
    return fields;
  } catch {
    throw invalid('the body must be multipart/form-data');
  }
};

/** Reads and validates a client request: malformed JSON, wrong types or a missing model are 400s. */
export const readRelayRequest = async (
  route: RelayRoute,
  raw: Uint8Array,
  contentType: string,
  pathModel: string | undefined,
): Promise<RelayRequest> =>
  route.multipart
    ? validated(route, await readMultipart(raw, contentType), raw, contentType, pathModel)
    : parseJsonRelayRequest(route, raw, contentType, pathModel);

/** {@link readRelayRequest} for a JSON route, without a promise (the hot path). */
export const parseJsonRelayRequest = (
  route: RelayRoute,
  raw: Uint8Array,
  contentType: string,
  pathModel: string | undefined,
): RelayRequest =>
  (raw.byteLength >= LARGE_BODY_BYTES && route.mode === 'chat' && !route.client
    ? largeChatRequest(route, raw, contentType)
    : undefined) ?? validated(route, parseJsonObject(raw), raw, contentType, pathModel);

/** A chat body from this size on is read by its skeleton (json-skeleton.ts) when it is plainly valid. */
export const LARGE_BODY_BYTES = 64 * 1024;

/**
 * A large chat body read without decoding or parsing its large members (the messages' text): only
 * when its small members and the shape of its messages are plainly valid (the same checks as
 * `plainlyValidChat`); anything else is parsed whole and judged by zod as always.
 */
const largeChatRequest = (
  route: RelayRoute,
  raw: Uint8Array,
  contentType: string,
): RelayRequest | undefined => {
  const skeleton = readSkeleton(raw);
  if (!skeleton) return undefined;
  const { fields, large } = skeleton;
  const messages = large.get('messages');
  const plain = messages
    ? plainlyValidChat({ ...fields, messages: [{ role: '' }] }) && plainMessages(raw, messages)
    : plainlyValidChat(fields);
  if (!plain) return undefined;
  let whole: Record<string, unknown> | undefined;
  return requestOf(route, fields, raw, contentType, () => (whole ??= parseJsonObject(raw)));
};

/** The whole body of a request (a large chat body is parsed here, once). */
export const fullBody = (request: RelayRequest): Record<string, unknown> =>
  request.full ? request.full() : request.body;

/** The chat route: the hub form's path, which every client format's request is relayed as. */
const CHAT_ROUTE: RelayRoute = { path: '/v1/chat/completions', mode: 'chat' };

/** A client format's request read into the hub form, checked as any chat body is. */
export const hubRelayRequest = (hub: Record<string, unknown>): RelayRequest =>
  validated(CHAT_ROUTE, hub, Buffer.from(JSON.stringify(hub)), 'application/json', undefined);

/** A JSON body that must be an object (a client format's body). */
export const parseJsonObject = (raw: Uint8Array): Record<string, unknown> => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(raw));
  } catch {
    throw invalid('the body must be valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw invalid('the body must be a JSON object');
  return parsed as Record<string, unknown>;
};

const validated = (
  route: RelayRoute,
  fields: Record<string, unknown>,
  raw: Uint8Array,
  contentType: string,
  pathModel: string | undefined,
): RelayRequest => {
  let body = fields;
  let bytes = raw;
  const fallback = pathModel ?? route.defaultModel;
  if ((body['model'] === undefined || body['model'] === '') && fallback) {
    body = { ...body, model: fallback };
    // The bytes that may go upstream as they are must name the model too.
    if (!route.multipart) bytes = Buffer.from(JSON.stringify(body));
  }
  if (route.mode !== 'chat' || !plainlyValidChat(body)) {
    const result = RELAY_SCHEMAS[route.mode].safeParse(body);
    if (!result.success) throw invalid(describeZodIssue(result.error, 'invalid request', true));
  }
  return requestOf(route, body, bytes, contentType);
};

/** A request from its validated body. */
const requestOf = (
  route: RelayRoute,
  body: Record<string, unknown>,
  bytes: Uint8Array,
  contentType: string,
  full?: () => Record<string, unknown>,
): RelayRequest => {
  const options = body['stream_options'];
  return {
    full,
    mode: route.mode,
    path: route.path.includes(':model') ? '/v1/embeddings' : route.path,
    model: String(body['model']).trim(),
    stream: body['stream'] === true,
    body,
    raw: bytes,
    contentType,
    clientWantsUsage:
      typeof options === 'object' &&
      options !== null &&
      (options as Record<string, unknown>)['include_usage'] === true,
    maxTokens: Number(body['max_tokens'] ?? body['max_completion_tokens'] ?? 0) || 0,
  };
};
