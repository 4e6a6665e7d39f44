import { AppError } from '../../lib/app-error.js';
import type { LimitKind } from './limit-store.js';

/** What a refusal says, per limit: OpenAI's `type` (requests or tokens) and the words. */
const REFUSALS: Readonly<Record<LimitKind, { type: string; what: string }>> = {
  rpm: { type: 'requests', what: 'requests per minute' },
  tpm: { type: 'tokens', what: 'tokens per minute' },
  concurrency: { type: 'requests', what: 'requests in flight at once' },
};

/** Whose limit refused: the key's, the user's or the group's. */
const SUBJECTS: Readonly<Record<string, string>> = { t: 'this key', u: 'this user', g: 'the group' };

/**
 * A request a rate limit refused: 429 with OpenAI's code, in the client's format (client-error.ts),
 * with `Retry-After` and the `x-ratelimit-*` headers, which relay-http.ts writes with it.
 */
export class RateLimitRefusal extends AppError {
  constructor(
    kind: LimitKind,
    subject: string,
    limit: number,
    readonly headers: Readonly<Record<string, string>>,
  ) {
    const refusal = REFUSALS[kind];
    const who = SUBJECTS[subject.slice(0, 1)] ?? 'this key';
    super(
      'rate_limit_exceeded',
      `rate limit reached for ${who}: ${limit} ${refusal.what}; retry after ${headers['retry-after'] ?? '1'} s`,
      429,
      refusal.type,
    );
  }
}
