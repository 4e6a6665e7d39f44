/**
 * Several keys in one channel's key field, one per line (Sluice's; one-api stores one key).
 *
 * The rule: the key is split on its line breaks only when every non-empty line is a complete key of
 * the channel's type; otherwise it is one key, exactly as stored (as one-api reads it). A line is a
 * complete key when it holds no blank and does not open or close JSON; a type whose key is composed
 * with `|` (Baidu `ak|sk` or a Qianfan v2 key, Spark `APPID|APISecret|APIKey`, Hunyuan
 * `AppId|SecretId|SecretKey`) needs each line to have its number of parts. Types whose credentials
 * live in `config` (AWS Bedrock's ak/sk/region, Vertex AI's service account JSON) never split, and
 * neither does a key that is JSON. A single line is always one key, untouched.
 */
import { z } from 'zod';
import { CHANNEL_TYPE } from './channel-types.js';
import { COMPOSED_KEY_FIELDS, jsonObjectOf } from './channel-config.js';

/** The numbers of `|`-separated parts a line may have, for the types that compose their key. */
const KEY_PARTS: Readonly<Record<number, readonly number[]>> = {
  [CHANNEL_TYPE.baidu]: [1, 2],
  [CHANNEL_TYPE.xunfei]: [3],
  [CHANNEL_TYPE.tencent]: [3],
};

const isCompleteLine = (type: number, line: string): boolean => {
  if (/\s/.test(line) || /^[{}[\]"]/.test(line) || /[{}]$/.test(line)) return false;
  const parts = KEY_PARTS[type];
  if (!parts) return true;
  const pieces = line.split('|');
  return parts.includes(pieces.length) && pieces.every((piece) => piece !== '');
};

/** The channel's keys: several when every line is a complete key of its type, else the key as stored. */
export const channelKeysOf = (type: number, key: string): string[] => {
  if (!key.includes('\n') || COMPOSED_KEY_FIELDS[type] !== undefined) return [key];
  if (/^\s*[{[]/.test(key)) return [key];
  const lines = key
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  if (lines.length < 2 || !lines.every((line) => isCompleteLine(type, line))) return [key];
  return lines;
};

/** How a channel of several keys picks one per request (its config's `key_selection`). */
export const KEY_SELECTIONS = ['round-robin', 'random'] as const;
export type KeySelection = (typeof KEY_SELECTIONS)[number];

export const keySelectionOf = (config: Readonly<Record<string, unknown>>): KeySelection =>
  config['key_selection'] === 'random' ? 'random' : 'round-robin';

/** What is wrong with the config's key_selection, undefined when nothing is. */
export const keySelectionProblem = (config: Readonly<Record<string, unknown>>): string | undefined => {
  const value = config['key_selection'];
  if (value === undefined || value === null || value === '') return undefined;
  return (KEY_SELECTIONS as readonly unknown[]).includes(value)
    ? undefined
    : `config.key_selection must be one of ${KEY_SELECTIONS.join(', ')}`;
};

/** A key the upstream refused: why and when (epoch seconds). */
export const disabledKeySchema = z.object({ reason: z.string(), at: z.number() });
export type DisabledKey = z.infer<typeof disabledKeySchema>;

/**
 * The config's `disabled_keys`: key id (a fingerprint of the key, never the key) → why and when.
 * Anything else there is read as nothing disabled.
 */
export const disabledKeysOf = (config: Readonly<Record<string, unknown>>): Record<string, DisabledKey> => {
  const parsed = z.record(z.string(), disabledKeySchema).safeParse(config['disabled_keys']);
  return parsed.success ? parsed.data : {};
};

/**
 * The config to store when a write replaces `stored` with `saved`: `disabled_keys` is the server's
 * own state (the relay and the channel test write it, the key list re-enables), so a form that sends
 * back a config it loaded earlier neither revives a key disabled since nor disables one again. A
 * config with no key states on either side is stored exactly as sent.
 */
export const withStoredKeyStates = (stored: string | null | undefined, saved: string): string => {
  const before = jsonObjectOf(stored)['disabled_keys'];
  const after = jsonObjectOf(saved);
  if (before === undefined && after['disabled_keys'] === undefined) return saved;
  if (Object.keys(after).length === 0 && saved.trim() !== '' && saved.trim() !== '{}') return saved;
  const { disabled_keys: _sent, ...rest } = after;
  return JSON.stringify(before === undefined ? rest : { ...rest, disabled_keys: before });
};

/** One key of a channel as the console sees it: masked, with its state. */
export const channelKeyStateSchema = z.object({
  index: z.number(),
  id: z.string(),
  masked: z.string(),
  enabled: z.boolean(),
  reason: z.string(),
  disabled_at: z.number(),
});
export type ChannelKeyState = z.infer<typeof channelKeyStateSchema>;

/** POST /api/channel/:id/keys/enable: which key (its id, as the key list gives it). */
export const enableChannelKeyRequestSchema = z.object({
  key_id: z.string({ error: 'key_id is required' }).regex(/^[0-9a-f]{16}$/, 'key_id must be a key id'),
});

/** A key as anyone may see it: its last four characters when it is long enough to spare them. */
export const maskedKey = (key: string): string => (key.length >= 24 ? `…${key.slice(-4)}` : '…');
