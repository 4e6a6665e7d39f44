import { CLIENT_FORMATS, type ClientFormat } from '@sluice/contract/schemas/log';
import { LOG_TYPE, type LogType } from '@sluice/contract/statuses';
import type { LogFilters } from './log-api.js';

type LogTypeKey = 'all' | 'topup' | 'consume' | 'manage' | 'system' | 'test';

/**
 * Log types of spec §4 with their badge colours, one row per type of the contract (unknown stands for
 * all in the filter).
 */
const LOG_TYPE_LABELS: Readonly<Record<LogType, { key: LogTypeKey; color: string }>> = {
  [LOG_TYPE.unknown]: { key: 'all', color: 'gray' },
  [LOG_TYPE.topup]: { key: 'topup', color: 'cyan' },
  [LOG_TYPE.consume]: { key: 'consume', color: 'green' },
  [LOG_TYPE.manage]: { key: 'manage', color: 'orange' },
  [LOG_TYPE.system]: { key: 'system', color: 'violet' },
  [LOG_TYPE.test]: { key: 'test', color: 'blue' },
};

/** The log types in the contract's order, with their labels and colours. */
export const LOG_TYPES: readonly { value: LogType; key: LogTypeKey; color: string }[] = Object.values(
  LOG_TYPE,
).map((value) => ({ value, ...LOG_TYPE_LABELS[value] }));

/** The client formats of the contract with their badge colours (labels: log.formats.<format>). */
const CLIENT_FORMAT_COLORS: Readonly<Record<ClientFormat, string>> = {
  openai: 'teal',
  anthropic: 'orange',
  responses: 'indigo',
  gemini: 'blue',
};

export const LOG_CLIENT_FORMATS: readonly { value: ClientFormat; color: string }[] = CLIENT_FORMATS.map(
  (value) => ({ value, color: CLIENT_FORMAT_COLORS[value] }),
);

/** A log row's client format as the table shows it: known ones only (older rows have none). */
export const clientFormatOf = (value: string): { value: ClientFormat; color: string } | undefined =>
  LOG_CLIENT_FORMATS.find((format) => format.value === value);

export { fromLocalInput, toLocalInput } from '../../lib/local-time-input.js';

/** How far back the Logs page looks by default. */
export const DEFAULT_LOG_WINDOW_SECONDS = 7 * 86_400;

/**
 * The default range is the last 7 days to now plus one hour. Spec §9 says from epoch 0: the whole
 * history, which the list and its statistic then read on every visit; the 7 days keep both bounded
 * (an admin picks an earlier start when needed).
 */
export const defaultLogFilters = (now: number = Date.now()): LogFilters => ({
  type: LOG_TYPE.unknown,
  token_name: '',
  model_name: '',
  start_timestamp: Math.floor(now / 1000) - DEFAULT_LOG_WINDOW_SECONDS,
  end_timestamp: Math.floor(now / 1000) + 3600,
  username: '',
  channel: 0,
  client_format: '',
});

/** Spec §7: the cleanup cutoff defaults to 30 days before now. */
export const DEFAULT_CLEANUP_AGE_SECONDS = 2_592_000;
