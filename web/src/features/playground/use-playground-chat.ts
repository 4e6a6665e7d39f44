import { useRef, useState } from 'react';
import type { StoredConversation, StoredTurn } from '../../lib/stored-conversation.js';
import { buildChatRequest } from './chat-request.js';
import { beforeLastReply, editedTurns, newId, sentTurnsOf, titleOf } from './conversation-model.js';
import { replyCost, type ReplyPrice } from './reply-cost.js';
import { streamReply, type ReplyProgress } from './stream-reply.js';

export interface ChatDeps {
  /** The key the requests are sent with, without `sk-`. */
  readonly key: string | undefined;
  /** The price of a model for the user's group (undefined: not listed, no cost shown). */
  readonly priceOf: (model: string) => ReplyPrice | undefined;
  /** Keeps a conversation (the browser's storage). */
  readonly save: (conversation: StoredConversation) => void;
}

/** A reply's turn as it stands after `progress`. */
const replyTurn = (turn: StoredTurn, progress: ReplyProgress, price: ReplyPrice | undefined): StoredTurn => ({
  ...turn,
  text: progress.text,
  reasoning: progress.reasoning === '' ? undefined : progress.reasoning,
  error: progress.error,
  stopped: progress.stopped,
  stats: progress.usage && {
    ...progress.usage,
    quota: price && replyCost(progress.usage, price),
    firstByteMs: progress.firstByteMs,
    totalMs: progress.totalMs,
  },
});

/**
 * The conversation on screen and its requests: send, stop (aborts the fetch, so Sluice aborts its
 * upstream call), regenerate the last reply, edit a message and resend from it. The conversation is
 * saved when a message is sent and when its reply ends.
 */
export const usePlaygroundChat = (
  conversation: StoredConversation,
  setConversation: (next: StoredConversation) => void,
  deps: ChatDeps,
) => {
  const [streaming, setStreaming] = useState(false);
  const controller = useRef<AbortController | undefined>(undefined);

  const run = async (base: StoredConversation, turns: StoredTurn[]) => {
    const { key } = deps;
    if (key === undefined || base.settings.model === '') return;
    const { settings } = base;
    const request = buildChatRequest(settings, sentTurnsOf(turns), `sk-${key}`);
    const title = base.title || titleOf(turns.find((turn) => turn.role === 'user')?.text ?? '');
    const reply: StoredTurn = {
      id: newId(),
      role: 'assistant',
      text: '',
      model: settings.model,
      format: settings.format,
    };
    const at = (replyState: StoredTurn): StoredConversation => ({
      ...base,
      title,
      updatedAt: Date.now(),
      turns: [...turns, replyState],
    });
    const price = deps.priceOf(settings.model);
    const started = at(reply);
    setConversation(started);
    deps.save({ ...started, turns: turns });
    const abort = new AbortController();
    controller.current = abort;
    setStreaming(true);
    const final = await streamReply({
      format: settings.format,
      request,
      signal: abort.signal,
      onProgress: (progress) => setConversation(at(replyTurn(reply, progress, price))),
    });
    const done = at(replyTurn(reply, final, price));
    setConversation(done);
    deps.save(done);
    controller.current = undefined;
    setStreaming(false);
  };

  return {
    streaming,
    send: (text: string, images: readonly string[]) =>
      run(conversation, [
        ...conversation.turns,
        { id: newId(), role: 'user', text, ...(images.length > 0 ? { images: [...images] } : {}) },
      ]),
    stop: () => controller.current?.abort(),
    regenerate: () => run(conversation, beforeLastReply(conversation.turns)),
    resend: (id: string, text: string) => run(conversation, editedTurns(conversation.turns, id, text)),
  };
};
