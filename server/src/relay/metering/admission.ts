import { relayError } from '../../lib/app-error.js';
import type { OptionValues } from '../../services/option-values.js';
import type { KeyAuth } from '../request/key-auth.js';
import type { RelayRequest } from '../request/relay-request.js';
import type { Billing } from './billing.js';
import { ratiosFor, reservationFor } from './pricing.js';
import type { Payer } from './settlement-write.js';

/** What the pipeline knows of a request's money before its first attempt. */
export interface Admission {
  readonly payer: Payer;
  /** The user's group ('default' when empty): it prices the request and picks its channels. */
  readonly group: string;
  /** The estimated cost of the request on its first channel, in quota units. */
  readonly estimate: number;
  /** What was taken from the user's (and a limited key's) balance before the call; 0 when nothing. */
  readonly reserved: number;
  /** The reservation's row (when something was reserved): its settlement or release takes it. */
  readonly reservationId: string | undefined;
}

export interface AdmissionInput {
  readonly billing: Billing;
  readonly options: Pick<
    OptionValues,
    'ModelRatio' | 'CompletionRatio' | 'GroupRatio' | 'PreConsumedQuota' | 'ApproximateTokenEnabled'
  >;
  readonly auth: KeyAuth;
  readonly request: RelayRequest;
  /** The model and channel type of the first channel that will be tried (the estimate's price). */
  readonly firstModel: string;
  readonly firstType: number;
  /** A cheap estimate of the prompt's tokens (the real count waits for the upstream's usage). */
  readonly promptEstimate: number;
  /** Told the payer's fresh quota and the estimate (quota reminders). */
  readonly onQuotaChecked?: ((userId: number, quota: number, estimate: number) => void) | undefined;
}

/**
 * Settlements waiting to be written (the database away) past which new requests are refused with a
 * 503 rather than answered unbilled into an ever longer queue.
 */
export const MAX_SETTLEMENT_BACKLOG = 100_000;

/** A user whose quota covers this many estimates (and whose key does too) is not reserved for. */
const TRUSTED_MULTIPLE = 100;

/**
 * The money rules before a call, in one place:
 * - Refused with 503 while MAX_SETTLEMENT_BACKLOG settlements wait for the database: the queue of
 *   answered-but-unbilled requests stays bounded.
 * - The estimate prices the request on its first channel (prompt estimate + max_tokens or
 *   PreConsumedQuota), as one-api's pre-consumption does.
 * - Refused with 403 `insufficient_user_quota` when the user's quota (read at most a second ago) is
 *   not above zero or below the estimate: a refused request costs nothing.
 * - No reservation for a trusted payer: a quota over 100 × the estimate, and a key that is unlimited
 *   or also holds over 100 × the estimate. one-api skips pre-consumption the same way; it saves a
 *   write transaction per request on the hot path. The settlement then charges the whole cost
 *   afterwards, so such a user can go below zero by the cost of the requests in flight at once,
 *   never more.
 * - Otherwise the estimate is reserved atomically (`quota = quota - n` only where `quota >= n`, for
 *   the user and for a limited key): a reservation that cannot be covered refuses the request.
 * The pipeline gives `reserved` back when every attempt failed; the settlement charges the real cost
 * minus `reserved` when one succeeded.
 */
export const admit = async (input: AdmissionInput): Promise<Admission> => {
  const { auth, billing, options } = input;
  if (billing.backlog() >= MAX_SETTLEMENT_BACKLOG)
    throw relayError(503, 'billing_backlog', 'billing is catching up with the database; retry shortly');
  const group = auth.user.group || 'default';
  const payer: Payer = {
    userId: auth.user.id,
    tokenId: auth.token.id,
    unlimited: Boolean(auth.token.unlimited_quota),
  };
  const estimate = reservationFor(
    input.request,
    input.firstModel,
    input.promptEstimate,
    ratiosFor(input.firstModel, input.firstType, group, options),
    options.PreConsumedQuota,
  );
  const quota = billing.freshQuota(payer.userId) ?? (await billing.userQuota(payer.userId));
  input.onQuotaChecked?.(payer.userId, quota, estimate);
  if (quota <= 0 || quota < estimate)
    throw relayError(403, 'insufficient_user_quota', 'user quota is not enough');
  const trusted =
    quota > TRUSTED_MULTIPLE * estimate &&
    (payer.unlimited || auth.token.remain_quota > TRUSTED_MULTIPLE * estimate);
  const reserved = trusted ? 0 : estimate;
  const reservationId = reserved > 0 ? await billing.reserve(payer, reserved) : undefined;
  return { payer, group, estimate, reserved, reservationId };
};
