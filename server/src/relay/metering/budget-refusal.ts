import { AppError } from '../../lib/app-error.js';
import type { BudgetWindow } from '../../lib/budget-windows.js';

const WINDOW_WORDS: Readonly<Record<BudgetWindow, string>> = {
  '5h': 'per 5 hours',
  daily: 'per day',
  weekly: 'per week',
  monthly: 'per month',
};

/**
 * A request a budget refused: 429 with code `budget_exceeded` and OpenAI's `insufficient_quota`
 * type (the type OpenAI gives a spent quota; the 429 because the window starts over, as a rate
 * limit does, so clients back off and retry rather than give up as on one-api's 403 for a spent
 * total quota), with `Retry-After` (seconds until enough of the window is freed: its reset for a
 * calendar window, its oldest spending's leaving for a rolling one). relay-http.ts writes the
 * headers; client-error.ts says it in the client's format. It costs nothing.
 */
export class BudgetRefusal extends AppError {
  constructor(
    readonly subject: 'u' | 't',
    readonly window: BudgetWindow,
    limit: number,
    used: number,
    readonly headers: Readonly<Record<string, string>>,
  ) {
    super(
      'budget_exceeded',
      `budget reached for ${subject === 'u' ? 'this user' : 'this key'}: ${used} of ${limit} quota ` +
        `${WINDOW_WORDS[window]} used; retry after ${headers['retry-after'] ?? '1'} s`,
      429,
      'insufficient_quota',
    );
  }
}
