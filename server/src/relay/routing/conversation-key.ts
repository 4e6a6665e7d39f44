import { createHash } from 'node:crypto';
import type { RelayRequest } from '../request/relay-request.js';

/** How much of a conversation's first messages names it, when nothing else does (characters or bytes). */
export const CONVERSATION_PREFIX = 4096;

/** What names a conversation: the request, the client's own body and headers, and the Sluice key. */
export interface ConversationSource {
  readonly request: RelayRequest;
  /** The client's body when it spoke a format of its own (Anthropic's `metadata` is only there). */
  readonly clientBody?: Readonly<Record<string, unknown>> | undefined;
  readonly clientHeaders: Readonly<Record<string, string>>;
  readonly tokenId: number;
}

const textOf = (value: unknown): string => {
  if (typeof value === 'string') return value.slice(0, CONVERSATION_PREFIX);
  if (!Array.isArray(value)) return '';
  let text = '';
  for (const part of value as unknown[]) {
    if (text.length >= CONVERSATION_PREFIX) break;
    const piece =
      typeof part === 'object' && part !== null ? (part as Record<string, unknown>)['text'] : undefined;
    if (typeof piece === 'string') text += piece.slice(0, CONVERSATION_PREFIX - text.length);
  }
  return text;
};

/**
 * The first messages up to the first user message (the system prompt and the first question, which
 * every later turn repeats), at most CONVERSATION_PREFIX characters of them.
 */
const openingOf = (messages: readonly unknown[]): string => {
  let opening = '';
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) break;
    const { role, content } = message as Record<string, unknown>;
    opening += `${String(role)}\u0000${textOf(content)}\u0000`;
    if (role === 'user' || opening.length >= CONVERSATION_PREFIX) break;
  }
  return opening.slice(0, CONVERSATION_PREFIX);
};

const MESSAGES = Buffer.from('"messages"');

/** A large body's messages are not parsed (json-skeleton.ts): the first bytes of them name it. */
const rawOpening = (raw: Uint8Array): Buffer | undefined => {
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const at = bytes.indexOf(MESSAGES);
  return at < 0 ? undefined : bytes.subarray(at, at + CONVERSATION_PREFIX);
};

const stringAt = (body: Readonly<Record<string, unknown>> | undefined, name: string): string | undefined => {
  const value = body?.[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

/**
 * The conversation a chat request belongs to, hashed (SHA-1, 40 hex digits), or undefined (not a
 * chat). Named by, first found: OpenAI's `prompt_cache_key`, Anthropic's `metadata.user_id` (Claude
 * Code's session), the `x-session-id` header, else the Sluice key and the conversation's opening
 * (a bounded prefix: hashing costs the same whatever the prompt's size). Scoped by the key, so two
 * keys never share a conversation.
 */
export const conversationKeyOf = (source: ConversationSource): string | undefined => {
  const { request, clientBody } = source;
  if (request.mode !== 'chat') return undefined;
  const hash = createHash('sha1').update(`${source.tokenId}\u0000`);
  const body = clientBody ?? request.body;
  const metadata = body['metadata'];
  const named =
    stringAt(body, 'prompt_cache_key') ??
    stringAt(request.body, 'prompt_cache_key') ??
    (typeof metadata === 'object' && metadata !== null
      ? stringAt(metadata as Record<string, unknown>, 'user_id')
      : undefined) ??
    source.clientHeaders['x-session-id'];
  if (named !== undefined) return hash.update(`n\u0000${named}`).digest('hex');
  const messages = request.body['messages'];
  if (Array.isArray(messages)) return hash.update(`m\u0000${openingOf(messages)}`).digest('hex');
  const raw = rawOpening(request.raw);
  return raw ? hash.update('r\u0000').update(raw).digest('hex') : undefined;
};
