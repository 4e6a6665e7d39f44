import { describe, expect, it } from 'vitest';
import type { StoredTurn } from '../../lib/stored-conversation.js';
import {
  beforeLastReply,
  editedTurns,
  MAX_CONVERSATIONS,
  newConversation,
  sentTurnsOf,
  titleOf,
  withConversation,
} from './conversation-model.js';

const TURNS: StoredTurn[] = [
  { id: 'u1', role: 'user', text: 'One', images: ['data:image/png;base64,AA=='] },
  { id: 'a1', role: 'assistant', text: 'Reply one' },
  { id: 'u2', role: 'user', text: 'Two' },
  { id: 'a2', role: 'assistant', text: '', error: 'upstream failed' },
  { id: 'u3', role: 'user', text: 'Three' },
  { id: 'a3', role: 'assistant', text: 'Half a rep', stopped: true },
];

describe('the conversation model', () => {
  it('sends user turns and replies with text, never a failed reply', () => {
    expect(sentTurnsOf(TURNS)).toEqual([
      { role: 'user', text: 'One', images: ['data:image/png;base64,AA=='] },
      { role: 'assistant', text: 'Reply one', images: undefined },
      { role: 'user', text: 'Two', images: undefined },
      { role: 'user', text: 'Three', images: undefined },
      { role: 'assistant', text: 'Half a rep', images: undefined },
    ]);
  });

  it('regenerates from the last user turn', () => {
    expect(beforeLastReply(TURNS).map((turn) => turn.id)).toEqual(['u1', 'a1', 'u2', 'a2', 'u3']);
  });

  it('resends an edited message, dropping what followed it', () => {
    expect(editedTurns(TURNS, 'u2', 'Deux')).toEqual([
      TURNS[0],
      TURNS[1],
      { id: 'u2', role: 'user', text: 'Deux' },
    ]);
    expect(editedTurns(TURNS, 'a1', 'not a user turn')).toEqual(TURNS);
  });

  it('titles a conversation by the first line of its first message', () => {
    expect(titleOf('  Hello there\nsecond line')).toBe('Hello there');
    expect(titleOf('x'.repeat(60))).toBe(`${'x'.repeat(39)}…`);
  });

  it('keeps the newest conversation first, once, and at most the cap', () => {
    const settings = { format: 'openai' as const, model: 'm', system: '' };
    const list = Array.from({ length: MAX_CONVERSATIONS }, (_, index) => newConversation(1, settings, index));
    const updated = { ...list[5]!, title: 'updated' };
    const kept = withConversation(list, updated);
    expect(kept).toHaveLength(MAX_CONVERSATIONS);
    expect(kept[0]).toEqual(updated);
    expect(kept.filter((entry) => entry.id === updated.id)).toHaveLength(1);
    expect(withConversation(list, newConversation(1, settings))).toHaveLength(MAX_CONVERSATIONS);
  });
});
