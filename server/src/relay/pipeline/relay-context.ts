import type { Logger } from 'pino';
import type { AppError } from '../../lib/app-error.js';
import type { OptionStore } from '../../services/option-store.js';
import type { OptionValues } from '../../services/option-values.js';
import type { ClientContext, ClientFormat } from '../clients/client-format.js';
import type { ClientLink } from '../http/client-link.js';
import type { LimitLease, RateLimiter } from '../limits/rate-limiter.js';
import type { Admission } from '../metering/admission.js';
import type { Billing } from '../metering/billing.js';
import type { ChargedRequest } from '../metering/charge.js';
import type { AdaptorSettings } from '../providers/adaptor.js';
import type { KeyAuth } from '../request/key-auth.js';
import type { RelayRequest } from '../request/relay-request.js';
import type { ChannelBreaker } from '../routing/channel-breaker.js';
import type { RoutableChannel } from '../routing/relay-index.js';
import type { CallRoute } from '../routing/call-route.js';
import type { UpstreamWait } from './relay-response.js';
import type { RoutingStrategyName } from '@sluice/contract/routing-strategies';
import type { Upstream } from '../upstream/upstream.js';

export interface PipelineDeps {
  readonly options: OptionStore;
  readonly billing: Billing;
  readonly upstream: Upstream;
  readonly logger: Logger;
  /** Told of every failed attempt (automatic channel disabling, wired in boot.ts). */
  readonly onChannelFailure: (channelId: number, error: AppError) => void;
  /**
   * Told of a failed attempt with one of a channel's several keys (by its id, never the key); true
   * when the key is refused for good and was disabled (boot.ts: the rule and the stored state).
   */
  readonly onKeyRefused?: (channelId: number, keyId: string, error: AppError) => boolean;
  readonly adaptorSettings?: AdaptorSettings;
  /** Told of a first attempt that succeeded (ENABLE_METRIC's success rate). */
  readonly onChannelSuccess?: (channelId: number) => void;
  /** Told the key and its user, the user's fresh quota and the request's estimated cost before each request (quota alerts). */
  readonly onQuotaChecked?: (auth: KeyAuth, quota: number, estimate: number) => void;
  /** Keeps settlements that run after the response, so shutdown and tests can wait for them. */
  readonly track: (work: Promise<unknown>) => void;
  /** The rate limits of keys, users and groups (limits/); absent: none. */
  readonly limiter?: RateLimiter;
  /** Cools a failing channel down and lets it back by a probe (routing/channel-breaker.ts); absent: none. */
  readonly breaker?: ChannelBreaker;
}

/** A request in a client format of its own: relayed as its hub form, answered back in its format. */
export interface ClientCall {
  readonly format: ClientFormat;
  readonly context: ClientContext;
  /** The client's body and bytes as it sent them, for a channel that speaks its format (untouched). */
  readonly body: Readonly<Record<string, unknown>>;
  readonly raw: Uint8Array;
  /** Why the hub cannot carry the request (what only the format's own provider runs): native channels only. */
  readonly hubRefusal?: AppError | undefined;
}

/** One relay request as the dispatcher hands it over: who asks, what, and the channels to try in order. */
export interface RelayCall {
  /** Set when the client does not speak OpenAI's format: `request` is then its hub form. */
  readonly client?: ClientCall | undefined;
  readonly auth: KeyAuth;
  readonly request: RelayRequest;
  readonly order: readonly RoutableChannel[];
  /** The strategy that ordered the channels' tier (the group's: routing/channel-router.ts). */
  readonly strategy: RoutingStrategyName;
  /** Whether the conversation's pin (affinity) put the first channel first. */
  readonly affinity: boolean;
  /** What the routing hears of the attempts: the key each took, the usage (routing/call-route.ts). */
  readonly route?: CallRoute | undefined;
  readonly requestId: string;
  readonly clientSignal: ClientLink;
  readonly clientHeaders: Readonly<Record<string, string>>;
}

/** One request as its attempts share it. */
export interface RequestContext {
  readonly deps: PipelineDeps;
  readonly call: RelayCall;
  /** The options as they were when the request came (one snapshot for all its attempts). */
  readonly options: OptionValues;
  readonly admission: Admission;
  /** Who pays and what the log row says of the request: what every settlement of it starts from. */
  readonly charged: ChargedRequest;
  /** The prompt's tokens counted locally: once, and only when an upstream gave no usage. */
  readonly localPromptTokens: () => number;
  /** The request's place in its rate limits, when any is set: settled on the usage billed. */
  readonly lease?: LimitLease | undefined;
  /** Its time on upstreams, written by the attempts; absent: not measured. */
  readonly upstreamWait?: UpstreamWait | undefined;
}
