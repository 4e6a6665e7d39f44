import {
  CHANNEL_TYPE,
  CHANNEL_TYPE_NAMES,
  CHANNEL_TYPES,
  type ChannelType,
  type ChannelTypeName,
} from '@sluice/contract/channel-types';
import { CHANNEL_STATUS } from '@sluice/contract/statuses';
import { ZH_CHANNEL_TYPE_LABELS } from '../../i18n/zh/channel-types.js';
import { formatNumber } from '../../lib/format.js';

/** How the channel list shows a channel (spec §4, §9): type, status, response time, balance. */

/** Catalogue colours that are not Mantine palette names, mapped to the nearest one. */
const PALETTE: Readonly<Record<string, string>> = {
  black: 'dark',
  olive: 'lime',
  brown: 'orange',
  purple: 'grape',
};

export const badgeColor = (color: string): string => PALETTE[color] ?? color;

const TYPES = new Map<number, ChannelType>(CHANNEL_TYPES.map((type) => [type.value, type]));

/** The catalogue entry of a type id, or undefined for an unknown type. */
export const channelTypeOf = (type: number): ChannelType | undefined => TYPES.get(type);

const NAMES = new Map<number, ChannelTypeName>(CHANNEL_TYPE_NAMES.map((name) => [CHANNEL_TYPE[name], name]));

/** A type's label in the console's language: Chinese from the console's table, else the catalogue's. */
export const channelTypeLabel = (type: ChannelType, language: string): string => {
  const name = NAMES.get(type.value);
  return language.startsWith('zh') && name ? ZH_CHANNEL_TYPE_LABELS[name] : type.text;
};

/** The statuses a channel shows by name: enabled, manually disabled, disabled by the program. */
export type ChannelStatusKey = Exclude<keyof typeof CHANNEL_STATUS, 'unknown'>;

/** One row per shown status of the contract; anything else (unknown, 0) is an unknown status. */
export const CHANNEL_STATUSES: Readonly<
  Record<(typeof CHANNEL_STATUS)[ChannelStatusKey], { key: ChannelStatusKey; color: string }>
> = {
  [CHANNEL_STATUS.enabled]: { key: 'enabled', color: 'teal' },
  [CHANNEL_STATUS.manuallyDisabled]: { key: 'manuallyDisabled', color: 'red' },
  [CHANNEL_STATUS.autoDisabled]: { key: 'autoDisabled', color: 'yellow' },
};

export type ResponseTimeLevel = 'untested' | 'failed' | 'green' | 'olive' | 'yellow' | 'red';

/**
 * Spec §4: 0 untested; up to 1000 ms green; up to 3000 olive; up to 5000 yellow; above red. A test
 * that failed leaves 0 ms with a test time: that channel was tested, and failed.
 */
export const responseTimeLevel = (milliseconds: number, testTime = 0): ResponseTimeLevel => {
  if (milliseconds === 0) return testTime > 0 ? 'failed' : 'untested';
  if (milliseconds <= 1000) return 'green';
  if (milliseconds <= 3000) return 'olive';
  if (milliseconds <= 5000) return 'yellow';
  return 'red';
};

export const RESPONSE_TIME_COLORS: Readonly<Record<ResponseTimeLevel, string>> = {
  untested: 'gray',
  failed: 'red',
  green: 'green',
  olive: 'lime',
  yellow: 'yellow',
  red: 'red',
};

/** Milliseconds as seconds with two decimals ("1.23"). */
export const responseSeconds = (milliseconds: number): string => (milliseconds / 1000).toFixed(2);

const dollars = (balance: number) => `$${balance.toFixed(2)}`;
const yuan = (balance: number) => `¥${balance.toFixed(2)}`;

/**
 * Spec §9, balance by type: OpenAI and custom channels in dollars; CloseAI, API2GPT and SiliconFlow
 * in yuan; OpenAI-SB in yuan after dividing by 10000; AI Proxy and AIGC2D as an abbreviated quota
 * number. Other types have no balance (undefined).
 */
const BALANCE_FORMATS: Readonly<Record<number, (balance: number) => string>> = {
  [CHANNEL_TYPE.openAi]: dollars,
  [CHANNEL_TYPE.custom]: dollars,
  [CHANNEL_TYPE.closeAi]: yuan,
  [CHANNEL_TYPE.api2gpt]: yuan,
  [CHANNEL_TYPE.siliconFlow]: yuan,
  [CHANNEL_TYPE.openAiSb]: (balance) => yuan(balance / 10_000),
  [CHANNEL_TYPE.aiProxy]: formatNumber,
  [CHANNEL_TYPE.aigc2d]: formatNumber,
};

export const balanceText = (type: number, balance: number): string | undefined =>
  BALANCE_FORMATS[type]?.(balance);

/**
 * The value an inline priority edit sends: a whole number, or undefined for a blank or unreadable
 * field (ignored, spec §5).
 */
export const priorityOf = (text: string): number | undefined => {
  if (text.trim() === '') return undefined;
  const value = Number.parseInt(text, 10);
  return Number.isNaN(value) ? undefined : value;
};

/** An inline weight edit: like the priority, with a negative weight clamped to 0 (spec §5). */
export const weightOf = (text: string): number | undefined => {
  const value = priorityOf(text);
  return value === undefined ? undefined : Math.max(value, 0);
};
