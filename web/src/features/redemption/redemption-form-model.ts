import type { RedemptionCreation } from './redemption-api.js';

/** The redemption form's state and rules (spec §5, §9), without rendering. */

/** Spec §9: new codes are worth 100000 quota, one code at a time. */
export const DEFAULT_REDEMPTION_QUOTA = 100_000;
export const DEFAULT_REDEMPTION_COUNT = 1;
/** The server creates at most 100 codes per call. */
export const MAX_REDEMPTION_COUNT = 100;

export interface RedemptionFormState {
  name: string;
  quota: number | string;
  count: number | string;
}

export const EMPTY_REDEMPTION_FORM: RedemptionFormState = {
  name: '',
  quota: DEFAULT_REDEMPTION_QUOTA,
  count: DEFAULT_REDEMPTION_COUNT,
};

const whole = (value: number | string): number => {
  const number = typeof value === 'number' ? value : Number.parseInt(value, 10);
  return Number.isFinite(number) ? Math.trunc(number) : 0;
};

/** True when the count is a whole number of codes the server creates in one call (1 to 100). */
export const countInRange = (count: number | string): boolean => {
  const number = typeof count === 'number' ? count : Number(count);
  return Number.isInteger(number) && number >= 1 && number <= MAX_REDEMPTION_COUNT;
};

/**
 * The body to send (count only on creation), or the translation key of the problem. A count outside
 * 1–100 is refused here, never clamped: the admin would get fewer codes than asked for.
 */
export const redemptionInputOf = (
  form: RedemptionFormState,
  creating: boolean,
): { input: RedemptionCreation } | { problem: 'redemption.nameRequired' | 'redemption.countRange' } => {
  const name = form.name.trim();
  if (creating && name === '') return { problem: 'redemption.nameRequired' };
  if (creating && !countInRange(form.count)) return { problem: 'redemption.countRange' };
  const input = { name, quota: whole(form.quota) };
  return { input: creating ? { ...input, count: whole(form.count) } : input };
};

/** The downloaded file: one code per line. */
export const codesFileText = (codes: readonly string[]): string => codes.map((code) => `${code}\n`).join('');

/** The file is named after the codes' name (spec §2). */
export const codesFileName = (name: string): string => `${name.trim()}.txt`;
