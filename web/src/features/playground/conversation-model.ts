import type { ConversationSettings, StoredConversation, StoredTurn } from '../../lib/stored-conversation.js';
import type { SentTurn } from './chat-request.js';

/** The conversations kept per browser (the oldest are dropped beyond this). */
export const MAX_CONVERSATIONS = 30;
/** A conversation's title: the start of its first message. */
export const TITLE_LENGTH = 40;

export const DEFAULT_SETTINGS: ConversationSettings = { format: 'openai', model: '', system: '' };

export const newId = (): string => globalThis.crypto.randomUUID();

export const newConversation = (
  userId: number,
  settings: ConversationSettings,
  now = Date.now(),
): StoredConversation => ({ id: newId(), userId, title: '', updatedAt: now, settings, turns: [] });

/** The title of a first message: its first line, cut to {@link TITLE_LENGTH} characters. */
export const titleOf = (text: string): string => {
  const line = text.trim().split('\n')[0]?.trim() ?? '';
  return line.length > TITLE_LENGTH ? `${line.slice(0, TITLE_LENGTH - 1)}…` : line;
};

/** The list with `conversation` first (replacing its older self), at most {@link MAX_CONVERSATIONS}. */
export const withConversation = (
  list: readonly StoredConversation[],
  conversation: StoredConversation,
): StoredConversation[] =>
  [conversation, ...list.filter((entry) => entry.id !== conversation.id)].slice(0, MAX_CONVERSATIONS);

/**
 * The turns a request sends: every user turn, and the replies that have text (a failed reply is not
 * part of the conversation; a stopped one is, as far as it got).
 */
export const sentTurnsOf = (turns: readonly StoredTurn[]): SentTurn[] =>
  turns
    .filter((turn) => turn.role === 'user' || (turn.error === undefined && turn.text !== ''))
    .map((turn) => ({ role: turn.role, text: turn.text, images: turn.images }));

/** Regenerate: the turns without the last reply (and anything after the last user turn). */
export const beforeLastReply = (turns: readonly StoredTurn[]): StoredTurn[] => {
  const lastUser = turns.findLastIndex((turn) => turn.role === 'user');
  return turns.slice(0, lastUser + 1);
};

/** Edit and resend: the turns up to the user turn `id`, whose text becomes `text`; what followed is dropped. */
export const editedTurns = (turns: readonly StoredTurn[], id: string, text: string): StoredTurn[] => {
  const index = turns.findIndex((turn) => turn.id === id && turn.role === 'user');
  if (index === -1) return [...turns];
  return [...turns.slice(0, index), { ...turns[index]!, text }];
};

/** The JSON export of conversations (what the browser keeps, pretty-printed). */
export const exportJson = (conversations: readonly StoredConversation[]): string =>
  `${JSON.stringify({ exported_at: new Date().toISOString(), conversations }, null, 2)}\n`;
