import { useRef, useState } from 'react';
import type { StoredConversation, StoredTurn } from '../../lib/stored-conversation.js';
import { buildChatRequest } from './chat-request.js';
import { beforeLastReply, editedTurns, newId, sentTurnsOf, titleOf } from './conversation-model.js';
import { replyCost, type ReplyPrice } from './reply-cost.js';
import { stoppedReplyCost } from './stopped-cost.js';
import { streamReply, type ReplyProgress } from './stream-reply.js';

export interface ChatDeps {
  /** The key the requests are sent with, without `sk-`. */
  readonly key: string | undefined;
  /** The price of a model for the user's group (undefined: not listed, no cost shown). */
  readonly priceOf: (model: string) => ReplyPrice | undefined;
  /** Keeps a conversation (the browser's storage). */
  readonly save: (conversation: StoredConversation) => void;
  /** What a stopped reply was billed (the user's log); stopped-cost.ts's by default. */
  readonly billedCost?: typeof stoppedReplyCost;
}

/** A stopped reply has no usage in its stream: its tokens and cost as the user's log has them. */
const withBilledCost = async (
  progress: ReplyProgress,
  billedCost: typeof stoppedReplyCost,
): Promise<Billed> => {
  if (!progress.stopped || progress.usage || !progress.requestId) return progress;
  const billed = await billedCost({ requestId: progress.requestId });
  if (!billed) return progress;
  const { promptTokens, completionTokens, quota } = billed;
  const usage = { promptTokens, completionTokens, cacheReadTokens: 0, cacheWriteTokens: 0 };
  return { ...progress, usage, billedQuota: quota };
};

/** A reply's progress, with the quota the log says it was billed (a stopped reply). */
type Billed = ReplyProgress & { readonly billedQuota?: number };

/** A reply's turn as it stands after `progress`. */
const replyTurn = (turn: StoredTurn, progress: Billed, price: ReplyPrice | undefined): StoredTurn => ({
  ...turn,
  text: progress.text,
  reasoning: progress.reasoning === '' ? undefined : progress.reasoning,
  error: progress.error,
  stopped: progress.stopped,
  stats: progress.usage && {
    promptTokens: progress.usage.promptTokens,
    completionTokens: progress.usage.completionTokens,
    cacheReadTokens: progress.usage.cacheReadTokens,
    cacheWriteTokens: progress.usage.cacheWriteTokens,
    quota: progress.billedQuota ?? (price && replyCost(progress.usage, price)),
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
    const streamed = await streamReply({
      format: settings.format,
      request,
      signal: abort.signal,
      onProgress: (progress) => setConversation(at(replyTurn(reply, progress, price))),
    });
    const final = await withBilledCost(streamed, deps.billedCost ?? stoppedReplyCost);
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
