import type { QuotaAlertField, QuotaAlertValues } from '@sluice/contract/schemas/quota-alerts';

/** How a user's alert is set: the site's threshold, their own, or off. */
export type AlertMode = 'site' | 'own' | 'off';

export interface AlertChoice {
  readonly mode: AlertMode;
  /** The own threshold in quota units ('' while the field is empty). */
  readonly amount: number | '';
}

export type QuotaAlertForm = Readonly<Record<QuotaAlertField, AlertChoice>>;

const choiceOf = (value: number | null): AlertChoice =>
  value === null
    ? { mode: 'site', amount: '' }
    : value > 0
      ? { mode: 'own', amount: value }
      : { mode: 'off', amount: '' };

/** The form of the stored thresholds (null: the site's; 0: off; more: the user's own). */
export const toQuotaAlertForm = (values: QuotaAlertValues): QuotaAlertForm => ({
  quota_alert_threshold: choiceOf(values.quota_alert_threshold),
  token_alert_threshold: choiceOf(values.token_alert_threshold),
});

/** An own threshold must be a whole number of quota units above 0 (0 is "off"). */
export const isValidChoice = (choice: AlertChoice): boolean =>
  choice.mode !== 'own' ||
  (typeof choice.amount === 'number' && Number.isInteger(choice.amount) && choice.amount > 0);

const valueOf = (choice: AlertChoice): number | null =>
  choice.mode === 'site' ? null : choice.mode === 'off' ? 0 : Number(choice.amount);

/** The PUT /api/user/self body of the form (only the two thresholds: nothing else changes). */
export const toQuotaAlertRequest = (form: QuotaAlertForm): QuotaAlertValues => ({
  quota_alert_threshold: valueOf(form.quota_alert_threshold),
  token_alert_threshold: valueOf(form.token_alert_threshold),
});
