import { relayError } from '../../lib/app-error.js';
import type { OptionValues } from '../../services/option-values.js';
import type { KeyAuth } from '../request/key-auth.js';
import type { RelayRequest } from '../request/relay-request.js';
import type { Billing } from './billing.js';
import { budgetSubjectsOf, type BudgetSettings } from './budget-ledger.js';
import { ratiosFor, reservationFor, type RatioOptions } from './pricing.js';
import type { Payer } from './settlement-write.js';

/** What the pipeline knows of a request's money before its first attempt. */
export interface Admission {
  readonly payer: Payer;
  /** The user's group ('default' when empty): it prices the request and picks its channels. */
  readonly group: string;
  /** The estimated cost of the request on its first channel, in quota units. */
  readonly estimate: number;
  /** What was taken from the payer's pool for the request: the estimate. */
  readonly reserved: number;
  /** The pool (a reservation row) it was taken from: the settlement draws the real cost from it. */
  readonly reservationId: string | undefined;
}

export interface AdmissionInput {
  readonly billing: Billing;
  readonly options: RatioOptions &
    BudgetSettings &
    Pick<OptionValues, 'PreConsumedQuota' | 'ApproximateTokenEnabled'>;
  readonly auth: KeyAuth;
  readonly request: RelayRequest;
  /** The model and channel type of the first channel that will be tried (the estimate's price). */
  readonly firstModel: string;
  readonly firstType: number;
  /** A cheap estimate of the prompt's tokens (the real count waits for the upstream's usage). */
  readonly promptEstimate: number;
  /** Told the key and its user, the payer's quota and the estimate (quota reminders, key quota alerts). */
  readonly onQuotaChecked?: ((auth: KeyAuth, quota: number, estimate: number) => void) | undefined;
}

/**
 * Settlements waiting to be written (the database away) past which new requests are refused with a
 * 503 rather than answered unbilled into an ever longer queue.
 */
export const MAX_SETTLEMENT_BACKLOG = 100_000;

/**
 * The money rules before a call, in one place:
 * - Refused with 503 while MAX_SETTLEMENT_BACKLOG settlements wait for the database: the queue of
 *   answered-but-unbilled requests stays bounded.
 * - The estimate prices the request on its first channel (prompt estimate + max_tokens or
 *   PreConsumedQuota), as one-api's pre-consumption does.
 * - The estimate is taken from the payer's quota pool on this instance (quota-pools.ts): in memory
 *   when the pool holds it; otherwise the pool first takes a slice of the user's quota (and a limited
 *   key's) atomically in the database, and a request whose estimate cannot be covered is refused
 *   with 403 `insufficient_user_quota` (or `pre_consume_token_quota_failed`): it costs nothing.
 *   Every instance's requests in flight and answered-but-unwritten ones are thus already out of the
 *   quota the others see: no instance spends what another has promised.
 * - First, a key or user with a budget has the estimate counted in its windows (budget-ledger.ts:
 *   taken from this instance's slice of the budget's room, in memory while it holds enough), or is
 *   refused with 429 `budget_exceeded` (budget-refusal.ts) at no cost; the answer's real cost
 *   replaces it, a release takes it out.
 * The pipeline gives the estimate back to the pool when every attempt failed; the answer replaces it
 * by the real cost.
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
  const estimate = Math.max(
    1,
    reservationFor(
      input.request,
      input.firstModel,
      input.promptEstimate,
      ratiosFor(input.firstModel, input.firstType, group, options),
      options.PreConsumedQuota,
    ),
  );
  const quota = billing.freshQuota(payer.userId) ?? (await billing.userQuota(payer.userId));
  // The quota as the database has it: what this instance's pool holds is not counted (at most a 50th).
  input.onQuotaChecked?.(auth, quota, estimate);
  const budgeted = budgetSubjectsOf(auth);
  if (budgeted) {
    // In memory while this instance's slices of the budgets hold room: no await then.
    const growing = billing.admitBudget(payer, budgeted, estimate, options);
    if (growing) await growing;
  }
  let reservationId: string | undefined;
  try {
    const taken = billing.admit(payer, estimate, quota, auth.token.remain_quota);
    reservationId = typeof taken === 'string' ? taken : await taken;
  } catch (error) {
    // Refused by the quota: the budget's count is taken back.
    if (budgeted) void billing.release(payer, estimate, undefined);
    throw error;
  }
  return { payer, group, estimate, reserved: estimate, reservationId };
};
