import { LOG_TYPE } from '@sluice/contract/statuses';
import type { LogFilters } from './log-api.js';

/** Log types of spec §4 with their badge colours (0 = all in the filter). */
export const LOG_TYPES: readonly {
  value: number;
  key: 'all' | 'topup' | 'consume' | 'manage' | 'system' | 'test';
  color: string;
}[] = [
  { value: LOG_TYPE.unknown, key: 'all', color: 'gray' },
  { value: LOG_TYPE.topup, key: 'topup', color: 'cyan' },
  { value: LOG_TYPE.consume, key: 'consume', color: 'green' },
  { value: LOG_TYPE.manage, key: 'manage', color: 'orange' },
  { value: LOG_TYPE.system, key: 'system', color: 'violet' },
  { value: LOG_TYPE.test, key: 'test', color: 'blue' },
];

const pad = (value: number) => String(value).padStart(2, '0');

/** Epoch seconds as a `datetime-local` value (local time); 0 as ''. */
export const toLocalInput = (seconds: number): string => {
  if (seconds <= 0) return '';
  const date = new Date(seconds * 1000);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
};

/** A `datetime-local` value as epoch seconds; '' or unparsable as 0 (not set). */
export const fromLocalInput = (value: string): number => {
  const time = new Date(value).getTime();
  return value === '' || Number.isNaN(time) ? 0 : Math.floor(time / 1000);
};

/** Spec §9: the default range is epoch 0 to now plus one hour. */
export const defaultLogFilters = (now: number = Date.now()): LogFilters => ({
  type: 0,
  token_name: '',
  model_name: '',
  start_timestamp: 0,
  end_timestamp: Math.floor(now / 1000) + 3600,
  username: '',
  channel: 0,
});

/** Spec §7: the cleanup cutoff defaults to 30 days before now. */
export const DEFAULT_CLEANUP_AGE_SECONDS = 2_592_000;
