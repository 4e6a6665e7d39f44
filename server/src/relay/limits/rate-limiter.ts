import { readGroupRateLimits, type GroupRateLimits } from '@sluice/contract/schemas/limits';
import type { Logger } from 'pino';
import { relayError } from '../../lib/app-error.js';
import type { OptionValues } from '../../services/option-values.js';
import type { KeyAuth } from '../request/key-auth.js';
import type { LimitAdmission, LimitCheck, LimitKind, LimitStore, LimitVerdict } from './limit-store.js';
import { rateLimitHeaders } from './rate-limit-headers.js';
import { RateLimitRefusal } from './rate-limit-refusal.js';

/**
 * An admitted request's place in its limits: the headers it answers with, its tokens settled on its
 * real usage, its slot in flight freed at its end. Both are idempotent; `settle(0)` gives the
 * estimate back (a request no channel answered).
 */
export interface LimitLease {
  readonly headers: Readonly<Record<string, string>>;
  readonly settle: (tokens: number) => void;
  readonly end: () => void;
}

export interface RateLimiter {
  /**
   * Checks the key's, the user's and the group's limits, and counts the request in them: undefined
   * when none is set (or the store is away and fails open); throws RateLimitRefusal (429), or a 503
   * when the store is away and RateLimitFailClosed is on.
   */
  admit(
    auth: KeyAuth,
    options: OptionValues,
    requestId: string,
    estimate: number,
  ): Promise<LimitLease | undefined> | undefined;
}

export interface RateLimiterDeps {
  readonly store: LimitStore;
  readonly logger: Logger;
  /** Told of each check the store could not answer: let through (open) or refused (closed). */
  readonly onStoreFailure?: (outcome: 'open' | 'closed') => void;
  readonly now?: () => number;
}

const positive = (value: number | string | null | undefined): number => {
  const number = Number(value ?? 0);
  return Number.isFinite(number) && number > 0 ? number : 0;
};

const LIMIT_OF: Readonly<Record<LimitKind, (check: LimitCheck) => number>> = {
  rpm: (check) => check.rpm,
  tpm: (check) => check.tpm,
  concurrency: (check) => check.concurrency,
};

/** The limits of the key, of its user and of the user's group; subjects without any are left out. */
const checksOf = (auth: KeyAuth, groups: GroupRateLimits): LimitCheck[] => {
  const group = auth.user.group || 'default';
  const groupLimits = groups[group];
  const candidates: LimitCheck[] = [
    {
      key: `t:${auth.token.id}`,
      rpm: positive(auth.token.rpm_limit),
      tpm: positive(auth.token.tpm_limit),
      concurrency: positive(auth.token.concurrency_limit),
    },
    {
      key: `u:${auth.user.id}`,
      rpm: positive(auth.user.rpm_limit),
      tpm: positive(auth.user.tpm_limit),
      concurrency: positive(auth.user.concurrency_limit),
    },
    {
      key: `g:${group}`,
      rpm: positive(groupLimits?.rpm),
      tpm: positive(groupLimits?.tpm),
      concurrency: positive(groupLimits?.concurrency),
    },
  ];
  return candidates.filter((check) => check.rpm > 0 || check.tpm > 0 || check.concurrency > 0);
};

const WARN_EVERY_MS = 60_000;

export const createRateLimiter = (deps: RateLimiterDeps): RateLimiter => {
  const { store, logger } = deps;
  const now = deps.now ?? Date.now;
  // The group limits parsed once per text of the option.
  let groupText: string | undefined;
  let groups: GroupRateLimits = {};
  const groupsOf = (text: string): GroupRateLimits => {
    if (text !== groupText) {
      const read = readGroupRateLimits(text);
      groups = read.ok ? read.limits : {};
      groupText = text;
    }
    return groups;
  };
  let warnedAt = -Infinity;
  const storeFailed = (error: unknown, closed: boolean) => {
    deps.onStoreFailure?.(closed ? 'closed' : 'open');
    if (performance.now() - warnedAt < WARN_EVERY_MS) return;
    warnedAt = performance.now();
    logger.warn(
      { err: error },
      closed
        ? 'rate limit store (Redis) unavailable: limited requests refused (RateLimitFailClosed)'
        : 'rate limit store (Redis) unavailable: limited requests let through unlimited',
    );
  };

  const leaseOf = (
    checks: LimitCheck[],
    id: string,
    admitted: LimitAdmission,
    headers: Record<string, string>,
  ): LimitLease => {
    let tokens: number | undefined;
    let settled = false;
    let ended = false;
    const finish = (settle: number | undefined, release: boolean) => {
      store.finish(checks, id, settle, release, now(), admitted).catch((error: unknown) => {
        logger.warn(
          { err: error, requestId: id },
          'rate limit store (Redis) unavailable: a request’s end not counted',
        );
      });
    };
    const tracksTokens = checks.some((check) => check.tpm > 0);
    const holdsSlot = checks.some((check) => check.concurrency > 0);
    return {
      headers,
      settle: (used) => {
        if (settled) return;
        settled = true;
        tokens = Math.max(0, Math.round(used));
        // Settled after the end (a client that left before the usage came): the tokens alone now.
        if (ended && tracksTokens) finish(tokens, false);
      },
      end: () => {
        if (ended) return;
        ended = true;
        // Usually settled by now: the tokens and the slot in one call.
        const settle = settled && tracksTokens ? tokens : undefined;
        if (settle !== undefined || holdsSlot) finish(settle, holdsSlot);
      },
    };
  };

  const verdictOf = (
    checks: LimitCheck[],
    id: string,
    admitted: LimitAdmission,
    verdict: LimitVerdict,
  ): LimitLease => {
    const { estimate } = admitted;
    if (verdict.refusedBy === undefined)
      return leaseOf(
        checks,
        id,
        admitted,
        rateLimitHeaders(checks, verdict.readings, { requests: 1, tokens: estimate }),
      );
    const kind = verdict.refusedBy;
    const headers = rateLimitHeaders(checks, verdict.readings, { requests: 0, tokens: 0 });
    headers['retry-after'] = String(Math.max(1, Math.ceil(verdict.retryAfterMs / 1000)));
    const refusing =
      checks.find((check, index) => {
        const reading = verdict.readings[index];
        const limit = LIMIT_OF[kind](check);
        if (limit === 0 || !reading) return false;
        if (kind === 'rpm') return reading.requests >= limit;
        if (kind === 'concurrency') return reading.inFlight >= limit;
        return reading.tokens > 0 && reading.tokens + estimate > limit;
      }) ?? checks[0];
    throw new RateLimitRefusal(kind, refusing?.key ?? 't', refusing ? LIMIT_OF[kind](refusing) : 0, headers);
  };

  return {
    admit: (auth, options, requestId, estimate) => {
      const checks = checksOf(auth, groupsOf(options.GroupRateLimits));
      if (checks.length === 0) return undefined;
      const admitted: LimitAdmission = { at: now(), estimate: Math.max(0, Math.round(estimate)) };
      return store.acquire(checks, requestId, admitted.estimate, admitted.at).then(
        (verdict) => verdictOf(checks, requestId, admitted, verdict),
        (error: unknown) => {
          const closed = options.RateLimitFailClosed;
          storeFailed(error, closed);
          if (closed)
            throw relayError(
              503,
              'rate_limiter_unavailable',
              'the rate limiter cannot be reached: try again shortly',
            );
          return undefined;
        },
      );
    },
  };
};
