/**
 * A channel's `config` (spec §3: JSON text with region, sk, ak, user_id, vertex_ai_project_id,
 * vertex_ai_adc). Two of its fields are credentials, copies of parts of the channel's key: like the
 * key, they are written but never read back.
 */
import { CHANNEL_TYPE } from './channel-types.js';
import { parseJson } from './parse-json.js';

/** The fields of `config` the console edits. */
export type ChannelConfigField =
  'region' | 'ak' | 'sk' | 'user_id' | 'vertex_ai_project_id' | 'vertex_ai_adc';

/** The config fields that are secrets: the AWS secret key and the Vertex AI service account JSON. */
export const SECRET_CONFIG_FIELDS: readonly ChannelConfigField[] = ['sk', 'vertex_ai_adc'];

/** Types whose key is composed from config fields (spec §5), in key order, joined with `|`. */
export const COMPOSED_KEY_FIELDS: Readonly<Record<number, readonly ChannelConfigField[]>> = {
  [CHANNEL_TYPE.aws]: ['ak', 'sk', 'region'],
  [CHANNEL_TYPE.vertexAi]: ['region', 'vertex_ai_project_id', 'vertex_ai_adc'],
};

/** A channel's JSON text field (config, model_mapping) as an object: {} when it is empty, not JSON, or not an object. */
export const jsonObjectOf = (text: string | null | undefined): Record<string, unknown> => {
  if (!text || text.trim() === '') return {};
  const value = parseJson(text);
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
};

const isBlank = (value: unknown): boolean => value === undefined || value === null || value === '';

/**
 * The config as anyone may read it: without its secret fields. A config that is not a JSON object
 * is answered as '' (nothing in it can be read as a field, but it may hold anything).
 */
export const publicConfig = (text: string | null | undefined): string => {
  if (!text || text.trim() === '') return '';
  const config = jsonObjectOf(text);
  if (Object.keys(config).length === 0) return text.trim() === '{}' ? text : '';
  if (!SECRET_CONFIG_FIELDS.some((field) => field in config)) return text;
  const visible = { ...config };
  for (const field of SECRET_CONFIG_FIELDS) delete visible[field];
  return JSON.stringify(visible);
};

/**
 * The config to store when `incoming` replaces `stored`: a secret field left out or blank keeps
 * its stored value (a form cannot show it, so blank means "keep", as for the key).
 */
export const mergedConfig = (stored: string | null | undefined, incoming: string): string => {
  const before = jsonObjectOf(stored);
  const kept = SECRET_CONFIG_FIELDS.filter((field) => !isBlank(before[field]));
  if (kept.length === 0) return incoming;
  const after = jsonObjectOf(incoming);
  if (incoming.trim() !== '' && Object.keys(after).length === 0 && incoming.trim() !== '{}') return incoming;
  const merged = { ...after };
  for (const field of kept) if (isBlank(merged[field])) merged[field] = before[field];
  return JSON.stringify(merged);
};

/** The key composed from the config's fields for AWS and Vertex AI; undefined when one is missing. */
export const composedKey = (type: number, text: string): string | undefined => {
  const fields = COMPOSED_KEY_FIELDS[type];
  if (!fields) return undefined;
  const config = jsonObjectOf(text);
  const parts = fields.map((field) => {
    const value = config[field];
    return typeof value === 'string' ? value.trim() : '';
  });
  return parts.every((part) => part !== '') ? parts.join('|') : undefined;
};

/**
 * The model a channel's mapping (its `model_mapping`, read by jsonObjectOf) sends a requested name
 * to: a non-empty upstream name, trimmed, or the name itself. The relay calls and bills the mapped
 * name; the price list prices it.
 */
export const mappedModel = (mapping: Readonly<Record<string, unknown>>, model: string): string => {
  const mapped = Object.hasOwn(mapping, model) ? mapping[model] : undefined;
  return typeof mapped === 'string' && mapped.trim() !== '' ? mapped.trim() : model;
};

/**
 * A channel's own upstream timeouts, in seconds, in its `config` (absent, blank or 0: the global
 * default, RELAY_TIMEOUT's or Sluice's): to connect, to the first byte for the client (the headers;
 * for a stream its first event), and the silence allowed between two chunks of an answer.
 */
export const CHANNEL_TIMEOUT_FIELDS = ['connect_timeout', 'first_byte_timeout', 'idle_timeout'] as const;
export type ChannelTimeoutField = (typeof CHANNEL_TIMEOUT_FIELDS)[number];

/** The longest timeout a channel may set: a day. */
export const MAX_CHANNEL_TIMEOUT_SECONDS = 86_400;

/**
 * A timeout field's seconds (a number, or a number written as text; a fraction allowed): undefined
 * when it is unset (absent, null, blank, 0), NaN when it is not a timeout.
 */
export const timeoutSecondsOf = (value: unknown): number | undefined => {
  if (value === undefined || value === null || value === '' || value === 0) return undefined;
  const seconds = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : NaN;
  if (seconds === 0) return undefined;
  return Number.isFinite(seconds) && seconds > 0 && seconds <= MAX_CHANNEL_TIMEOUT_SECONDS ? seconds : NaN;
};

/** What is wrong with the config's timeout fields, undefined when nothing is. */
export const channelTimeoutProblem = (config: Readonly<Record<string, unknown>>): string | undefined => {
  const wrong = CHANNEL_TIMEOUT_FIELDS.find((field) => Number.isNaN(timeoutSecondsOf(config[field])));
  return wrong === undefined
    ? undefined
    : `config.${wrong} must be a number of seconds above 0 and at most ${MAX_CHANNEL_TIMEOUT_SECONDS}`;
};
