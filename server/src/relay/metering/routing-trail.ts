import type { AppError } from '../../lib/app-error.js';

/** One failed attempt of a request, as its log row says it. */
export interface FailedAttempt {
  readonly channel: number;
  /** The channel's key the attempt took (its place in the key field; 0 for a one-key channel). */
  readonly key: number;
  readonly status: number;
  /** The error's code (the relay's or the provider's), never its message. */
  readonly reason: string;
  readonly ms: number;
}

/**
 * A request's way through the channels, kept for its log row: made once per request (the pipeline),
 * `key` and `startedAt` moved by each attempt, a record added per failed attempt only.
 */
export interface RoutingTrail {
  /** The strategy that ordered the channels (the group's) and whether affinity chose the first. */
  readonly strategy: string;
  readonly affinity: boolean;
  readonly failed: FailedAttempt[];
  /** The key of the attempt under way (attempt.ts sets it when it picks one). */
  key: number;
  /** `performance.now()` when the attempt under way started. */
  startedAt: number;
}

export const routingTrail = (strategy: string, affinity: boolean): RoutingTrail => ({
  strategy,
  affinity,
  failed: [],
  key: 0,
  startedAt: 0,
});

const REASON_MAX = 64;

/** The attempt under way failed: recorded with its status and the error's code. */
export const attemptFailed = (trail: RoutingTrail, channel: number, error: AppError): void => {
  trail.failed.push({
    channel,
    key: trail.key,
    status: error.status,
    reason: String(error.code).slice(0, REASON_MAX),
    ms: Math.round(performance.now() - trail.startedAt),
  });
};

/** A number as JSON writes it (a number that is not finite is `null`). */
const json = (value: number): string => (Number.isFinite(value) ? String(value) : 'null');

/** One attempt as JSON, its fields in the order the log has always had them. */
const attemptText = (channel: number, key: number, status: number, reason: string, ms: number): string =>
  `{"channel":${json(channel)},"key":${json(key)},"status":${json(status)},"reason":${JSON.stringify(reason)},"ms":${json(ms)}}`;

/**
 * The log row's `routing` (JSON): the strategy, the affinity, and every attempt in order, the
 * failed ones and last the one that answered (`channel`, its key, 200, the time to its settlement).
 * Written by hand (every answered request makes one): the same text `JSON.stringify` makes of
 * `{strategy, affinity, attempts}`.
 */
export const routingText = (trail: RoutingTrail, answeredBy: number): string => {
  let text = `{"strategy":${JSON.stringify(trail.strategy)},"affinity":${trail.affinity},"attempts":[`;
  for (const failed of trail.failed)
    text += `${attemptText(failed.channel, failed.key, failed.status, failed.reason, failed.ms)},`;
  const ms = Math.round(performance.now() - trail.startedAt);
  return `${text}${attemptText(answeredBy, trail.key, 200, '', ms)}]}`;
};
