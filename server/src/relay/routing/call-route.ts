import type { Usage } from '../providers/adaptor.js';
import type { RelayReply } from '../pipeline/relay-response.js';
import type { AffinityStore, Pin } from './affinity-store.js';
import type { CacheHitMetrics } from './cache-hit-metrics.js';
import type { LiveCounters } from './live-counters.js';
import { loadOf, observeLatency, type StrategyState } from './channel-load.js';
import type { KeyRoute, PickedKey } from './channel-keys.js';

/** What a request's route reports to (one per Sluice instance: routing/channel-router.ts). */
export interface RouteSinks {
  readonly state: StrategyState;
  readonly affinity: AffinityStore;
  readonly cacheHits?: CacheHitMetrics | undefined;
  readonly live?: LiveCounters | undefined;
}

/**
 * One request's way through the channels, as the routing sees it: the key each attempt picked
 * (channel-keys.ts `pickKey` tells it), the channel's requests in flight here (from the attempt's
 * start to the answer's end), the first-byte time of the channel that answered (when the pipeline
 * hands the answer over: a stream's opening, a whole answer's end), the cache hits of its usage, and
 * the conversation's pin moved to the channel and key that answered. A class: its methods are
 * shared, nothing is made per request but the object itself.
 */
export class CallRoute implements KeyRoute {
  channelId = 0;
  keyId: string | undefined = undefined;
  private pickedAt = 0;
  private counted = false;
  private triedPin = false;
  /** An attempt picked and not answered yet (the live dashboard counts it failed if the next is picked). */
  private attempting = false;

  constructor(
    private readonly sinks: RouteSinks,
    /** The conversation's hashed name (conversation-key.ts), when affinity is on and the request is a chat. */
    readonly conversation: string | undefined,
    /** Where the conversation was pinned when the request came. */
    readonly pin: Pin | undefined,
    private readonly ttlMs: number,
  ) {}

  pinnedKey(channelId: number): string | undefined {
    return this.pin !== undefined && this.pin.channelId === channelId ? this.pin.keyId : undefined;
  }

  picked(channelId: number, key: PickedKey): void {
    this.leave();
    if (this.attempting) this.sinks.live?.failed(this.channelId);
    this.attempting = true;
    this.channelId = channelId;
    this.keyId = key.id;
    if (channelId === this.pin?.channelId) this.triedPin = true;
    this.pickedAt = performance.now();
    loadOf(this.sinks.state, channelId).inFlight += 1;
    this.counted = true;
  }

  /** The usage an answer was billed by (answers.ts `settle`): its cache hits and the live dashboard's counts. */
  settled(model: string, usage: Usage, userId = 0, quota = 0): void {
    if (this.channelId === 0) return;
    const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
    this.sinks.cacheHits?.observe(this.channelId, this.keyId, model, usage.prompt_tokens, cached);
    this.sinks.live?.settled(userId, model, usage.prompt_tokens, usage.completion_tokens, cached, quota);
  }

  /** The answer the pipeline hands over: its channel measured and pinned; its end frees its slot. */
  answered(reply: RelayReply): RelayReply {
    if (this.channelId === 0) return reply;
    const firstByte = performance.now() - this.pickedAt;
    observeLatency(this.sinks.state, this.channelId, firstByte);
    if (this.attempting) this.sinks.live?.answered(this.channelId, firstByte);
    this.attempting = false;
    const { pin, conversation } = this;
    if (conversation !== undefined && (pin?.channelId !== this.channelId || pin.keyId !== this.keyId))
      this.sinks.affinity.remember(
        conversation,
        { channelId: this.channelId, keyId: this.keyId },
        this.ttlMs,
      );
    if (!this.counted) return reply;
    const ended = reply.onEnd;
    return {
      status: reply.status,
      headers: reply.headers,
      body: reply.body,
      onEnd: () => {
        ended?.();
        this.leave();
      },
      upstreamWait: reply.upstreamWait,
    };
  }

  /** No channel answered: the slot freed; a pinned channel that was tried loses the conversation. */
  failed(): void {
    this.leave();
    if (this.attempting) this.sinks.live?.failed(this.channelId);
    this.attempting = false;
    if (this.conversation !== undefined && this.triedPin) this.sinks.affinity.forget(this.conversation);
  }

  private leave(): void {
    if (!this.counted) return;
    this.counted = false;
    loadOf(this.sinks.state, this.channelId).inFlight -= 1;
  }
}
