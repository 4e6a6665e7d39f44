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

/** The body to send (count only on creation), or the translation key of the problem. */
export const redemptionInputOf = (
  form: RedemptionFormState,
  creating: boolean,
): { input: RedemptionCreation } | { problem: 'redemption.nameRequired' } => {
  const name = form.name.trim();
  if (creating && name === '') return { problem: 'redemption.nameRequired' };
  const input = { name, quota: whole(form.quota) };
  return { input: creating ? { ...input, count: Math.max(whole(form.count), 1) } : input };
};

/** The downloaded file: one code per line. */
export const codesFileText = (codes: readonly string[]): string => codes.map((code) => `${code}\n`).join('');

/** The file is named after the codes' name (spec §2). */
export const codesFileName = (name: string): string => `${name.trim()}.txt`;
