import { z } from 'zod';
import { isChannelType } from '../channel-types.js';
import { CHANNEL_STATUS } from '../statuses.js';
import { parseJson } from '../parse-json.js';
import { channelTimeoutProblem } from '../channel-config.js';
import { keySelectionProblem } from '../channel-keys.js';

/** Column sizes of one-api's `channels` and `abilities` tables, and Sluice's caps on text columns. */
export const CHANNEL_LIMITS = {
  nameMax: 191,
  /** varchar(191) on MySQL, as GORM makes the column (a default and no size). */
  baseUrlMax: 191,
  modelMappingMax: 1024,
  groupMax: 32,
  modelNameMax: 191,
  testModelMax: 191,
  textMax: 65_535,
  /** The key field of a create call may hold one key per line. */
  keysMax: 1_000_000,
} as const;

/** The states of a channel's breaker (the relay's routing/channel-breaker.ts). */
export const CHANNEL_BREAKER_STATES = ['closed', 'open', 'half_open'] as const;
export type ChannelBreakerState = (typeof CHANNEL_BREAKER_STATES)[number];

/** The channel record as the server sends it; `key` is always '' (keys never leave the server). */
export const channelSchema = z.object({
  id: z.number(),
  type: z.number(),
  key: z.string(),
  status: z.number(),
  name: z.string(),
  weight: z.number(),
  created_time: z.number(),
  test_time: z.number(),
  response_time: z.number(),
  base_url: z.string(),
  other: z.string(),
  balance: z.number(),
  balance_updated_time: z.number(),
  models: z.string(),
  group: z.string(),
  used_quota: z.number(),
  model_mapping: z.string(),
  priority: z.number(),
  config: z.string(),
  system_prompt: z.string(),
  test_model: z.string(),
  /**
   * Sluice's own, in the list and the search: the channel's breaker on the answering instance
   * (closed; open: passed over until `cooled_until`, Unix seconds; half-open: one probe may go).
   */
  breaker_state: z.enum(CHANNEL_BREAKER_STATES).optional(),
  cooled_until: z.number().optional(),
});
export type Channel = z.infer<typeof channelSchema>;

/** Splits a comma list: entries trimmed, empty ones dropped, duplicates removed, order kept. */
export const splitCommaList = (value: string): string[] => [
  ...new Set(
    value
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== ''),
  ),
];

/** A text column that may be null on the wire (read as empty); `trim` strips outer whitespace. */
const text = (label: string, max: number, trim = true) =>
  z
    .string({ error: `${label} must be a string` })
    .max(max, `${label} must be at most ${max} characters`)
    .nullable()
    .transform((value) => (trim ? (value ?? '').trim() : (value ?? '')));

const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON object as text, or empty; `valueCheck` constrains the object's values. */
const jsonObjectText = (label: string, max: number, shape: string, valueCheck: (value: unknown) => boolean) =>
  text(label, max).superRefine((value, ctx) => {
    if (value === '') return;
    const parsed = parseJson(value);
    if (parsed === undefined) {
      ctx.addIssue({ code: 'custom', message: `${label} must be valid JSON` });
    } else if (!isJsonObject(parsed) || !Object.values(parsed).every(valueCheck)) {
      ctx.addIssue({ code: 'custom', message: `${label} must be valid JSON: ${shape}` });
    }
  });

const typeSchema = z
  .number({ error: 'type must be a channel type id' })
  .int('type must be a channel type id')
  .refine(isChannelType, 'unknown channel type');

const CHANNEL_STATUSES: readonly number[] = [
  CHANNEL_STATUS.enabled,
  CHANNEL_STATUS.manuallyDisabled,
  CHANNEL_STATUS.autoDisabled,
];
const statusSchema = z
  .number({ error: 'status must be 1, 2 or 3' })
  .int('status must be 1, 2 or 3')
  .refine((value) => CHANNEL_STATUSES.includes(value), 'status must be 1, 2 or 3');

const nameSchema = z
  .string({ error: 'channel name is required' })
  .trim()
  .min(1, 'channel name is required')
  .max(CHANNEL_LIMITS.nameMax, `channel name must be at most ${CHANNEL_LIMITS.nameMax} characters`);

/** Weight: a whole number; a negative weight is read as 0. `null` (a blank field) means "not given". */
const weightSchema = z
  .number({ error: 'weight must be a whole number' })
  .int('weight must be a whole number')
  .max(2_147_483_647, 'weight is too large')
  .transform((value) => Math.max(value, 0))
  .nullish()
  .transform((value) => value ?? undefined);

/** Priority: a whole number, higher first. `null` (a blank field) means "not given". */
const prioritySchema = z
  .number({ error: 'priority must be a whole number' })
  .int('priority must be a whole number')
  .nullish()
  .transform((value) => value ?? undefined);

/** Models: a comma list, normalised; every name fits the abilities table. */
const modelsSchema = text('models', CHANNEL_LIMITS.textMax)
  .transform((value) => splitCommaList(value).join(','))
  .refine(
    (value) => splitCommaList(value).every((model) => model.length <= CHANNEL_LIMITS.modelNameMax),
    `each model name must be at most ${CHANNEL_LIMITS.modelNameMax} characters`,
  );

/** Groups: a comma list, normalised; at least one group; the column holds 32 characters. */
const groupSchema = z
  .string({ error: 'group must be a comma-separated list of group names' })
  .max(CHANNEL_LIMITS.textMax, 'group is too long')
  .transform((value) => splitCommaList(value).join(','))
  .refine((value) => value !== '', 'group must name at least one group')
  .refine(
    (value) => value.length <= CHANNEL_LIMITS.groupMax,
    `group must be at most ${CHANNEL_LIMITS.groupMax} characters`,
  );

/** The writable fields common to create and update, as the console sends them. */
const settingFields = {
  base_url: text('base_url', CHANNEL_LIMITS.baseUrlMax).transform((value) => value.replace(/\/+$/, '')),
  other: text('other', CHANNEL_LIMITS.textMax, false),
  models: modelsSchema,
  model_mapping: jsonObjectText(
    'model mapping',
    CHANNEL_LIMITS.modelMappingMax,
    'an object mapping model names to model names',
    (value) => typeof value === 'string',
  ),
  // Any object (one-api's rows keep what they hold); the timeouts and key selection Sluice reads must be valid.
  config: jsonObjectText('config', CHANNEL_LIMITS.textMax, 'an object', () => true).superRefine(
    (value, ctx) => {
      const parsed = value === '' ? undefined : parseJson(value);
      const problem = isJsonObject(parsed)
        ? (channelTimeoutProblem(parsed) ?? keySelectionProblem(parsed))
        : undefined;
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    },
  ),
  system_prompt: text('system_prompt', CHANNEL_LIMITS.textMax, false),
  test_model: text('test_model', CHANNEL_LIMITS.testModelMax),
};

/**
 * POST /api/channel/. `key` holds one key per line: every non-empty line makes one channel. The
 * console's `groups` array (and any other unknown field) is ignored; `group` is the comma list.
 */
export const createChannelRequestSchema = z.object({
  type: typeSchema,
  name: nameSchema,
  key: z
    .string({ error: 'channel key is required' })
    .max(CHANNEL_LIMITS.keysMax, 'channel key is too long')
    .refine((value) => value.trim() !== '', 'channel key is required'),
  status: statusSchema.default(CHANNEL_STATUS.enabled),
  weight: weightSchema.transform((value) => value ?? 0),
  priority: prioritySchema.transform((value) => value ?? 0),
  group: groupSchema.default('default'),
  base_url: settingFields.base_url.default(''),
  other: settingFields.other.default(''),
  models: settingFields.models.default(''),
  model_mapping: settingFields.model_mapping.default(''),
  config: settingFields.config.default(''),
  system_prompt: settingFields.system_prompt.default(''),
  test_model: settingFields.test_model.default(''),
});
export type CreateChannelRequest = z.infer<typeof createChannelRequestSchema>;

/** Keys of a create call: one per non-empty line, trimmed. */
export const splitChannelKeys = (key: string): string[] =>
  key
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

/**
 * PUT /api/channel/. Every field present is written, every absent field is left alone (so
 * `{id, status}`, `{id, priority}` and `{id, weight}` are partial updates); an empty key keeps the key.
 */
export const updateChannelRequestSchema = z.object({
  id: z
    .number({ error: 'id must be a positive whole number' })
    .int('id must be a positive whole number')
    .positive('id must be a positive whole number'),
  type: typeSchema.optional(),
  name: nameSchema.optional(),
  key: z
    .string({ error: 'key must be a string' })
    .max(CHANNEL_LIMITS.textMax, 'channel key is too long')
    .nullish()
    .transform((value) => value?.trim() ?? ''),
  status: statusSchema.optional(),
  weight: weightSchema,
  priority: prioritySchema,
  group: groupSchema.optional(),
  base_url: settingFields.base_url.optional(),
  other: settingFields.other.optional(),
  models: settingFields.models.optional(),
  model_mapping: settingFields.model_mapping.optional(),
  config: settingFields.config.optional(),
  system_prompt: settingFields.system_prompt.optional(),
  test_model: settingFields.test_model.optional(),
});
export type UpdateChannelRequest = z.infer<typeof updateChannelRequestSchema>;
