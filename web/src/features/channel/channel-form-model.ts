import {
  COMPOSED_KEY_FIELDS,
  jsonObjectOf,
  SECRET_CONFIG_FIELDS,
  type ChannelConfigField,
} from '@sluice/contract/channel-config';
import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { splitCommaList, type Channel } from '@sluice/contract/schemas/channel';
import { isValidJson, parseJson } from '@sluice/contract/parse-json';
import type { ChannelInput } from './channel-api.js';

/** The channel form's state and its save rules (spec §5, §9), without rendering. */

/** Spec §5: an Azure channel without an api version gets this one. */
export const DEFAULT_AZURE_API_VERSION = '2024-03-01-preview';

/** The sub-fields of `config` the form edits (spec §3). */
export type ConfigField = ChannelConfigField;
export type ChannelConfig = Record<ConfigField, string>;

export interface ChannelFormState {
  type: number;
  name: string;
  key: string;
  /** One key per line, one channel per key (creation only, not for AWS). */
  batch: boolean;
  baseUrl: string;
  other: string;
  models: string[];
  groups: string[];
  modelMapping: string;
  systemPrompt: string;
  config: ChannelConfig;
  /** Fields of a loaded `config` the form does not edit: sent back unchanged. */
  otherConfig: Record<string, unknown>;
  /** Blank ('') means "not set". */
  priority: number | string;
  weight: number | string;
  testModel: string;
  /** The type of the loaded channel: the secrets it has stored (key, sk, ADC) are of that type. */
  storedType?: number;
}

const EMPTY_CONFIG: ChannelConfig = {
  region: '',
  ak: '',
  sk: '',
  user_id: '',
  vertex_ai_project_id: '',
  vertex_ai_adc: '',
};
const CONFIG_FIELDS = Object.keys(EMPTY_CONFIG) as ConfigField[];

export const EMPTY_CHANNEL_FORM: ChannelFormState = {
  type: CHANNEL_TYPE.openAi,
  name: '',
  key: '',
  batch: false,
  baseUrl: '',
  other: '',
  models: [],
  groups: ['default'],
  modelMapping: '',
  systemPrompt: '',
  config: EMPTY_CONFIG,
  otherConfig: {},
  priority: 0,
  weight: 0,
  testModel: '',
};

/** The config sub-fields each type edits; their values are stored in `config`. */
export const CONFIG_FIELDS_BY_TYPE: Readonly<Record<number, readonly ConfigField[]>> = {
  [CHANNEL_TYPE.aws]: ['region', 'ak', 'sk'],
  [CHANNEL_TYPE.vertexAi]: ['region', 'vertex_ai_project_id', 'vertex_ai_adc'],
  [CHANNEL_TYPE.coze]: ['user_id'],
  [CHANNEL_TYPE.cloudflare]: ['user_id'],
};

/** Types whose key is composed from config sub-fields (spec §5), in key order. */
const COMPOSED_KEYS = COMPOSED_KEY_FIELDS;

/** The config fields that are secrets: the server never answers them, blank keeps them. */
export const isSecretConfigField = (field: ConfigField): boolean =>
  SECRET_CONFIG_FIELDS.some((secret) => secret === field);

export const hasComposedKey = (type: number): boolean => type in COMPOSED_KEYS;

/** Batch creation is offered on creation, except for AWS (and Vertex AI, whose key is composed). */
export const canBatch = (type: number, editing: boolean): boolean => !editing && !hasComposedKey(type);

/**
 * The key to send: AWS is ak|sk|region and Vertex AI region|project id|ADC JSON, composed from the
 * sub-fields once all are filled (else empty); other types send the typed key (batch: one per line).
 */
export const composeKey = (form: Pick<ChannelFormState, 'type' | 'key' | 'batch' | 'config'>): string => {
  const parts = COMPOSED_KEYS[form.type];
  if (parts) {
    const values = parts.map((field) => form.config[field].trim());
    return values.every((value) => value !== '') ? values.join('|') : '';
  }
  if (!form.batch) return form.key.trim();
  return form.key
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join('\n');
};

/** Spec §5: trailing slashes are removed from the base URL. */
export const normaliseBaseUrl = (baseUrl: string): string => baseUrl.trim().replace(/\/+$/, '');

/** `config` as sent: the loaded extra fields plus the type's non-empty sub-fields; '' when empty. */
export const configText = (form: Pick<ChannelFormState, 'type' | 'config' | 'otherConfig'>): string => {
  const config: Record<string, unknown> = { ...form.otherConfig };
  for (const field of CONFIG_FIELDS_BY_TYPE[form.type] ?? []) {
    const value = form.config[field].trim();
    if (value !== '') config[field] = value;
  }
  return Object.keys(config).length === 0 ? '' : JSON.stringify(config);
};

const wholeNumber = (value: number | string): number | undefined => {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) : undefined;
  if (value.trim() === '') return undefined;
  const parsed = Number.parseInt(value, 10);
  return Number.isNaN(parsed) ? undefined : parsed;
};

export type ChannelProblem =
  | 'channel.validation.nameAndKey'
  | 'channel.validation.models'
  | 'channel.validation.modelMapping'
  | 'channel.validation.groups';

/** The body to send, or the translation key of the form's first problem (spec §5). */
export const channelInputOf = (
  form: ChannelFormState,
  editing: boolean,
): { input: ChannelInput } | { problem: ChannelProblem } => {
  const key = composeKey({ ...form, batch: form.batch && canBatch(form.type, editing) });
  const name = form.name.trim();
  if (!editing && (name === '' || key === '')) return { problem: 'channel.validation.nameAndKey' };
  // A channel turned into AWS or Vertex AI has no stored parts of that kind to keep: all are needed.
  if (editing && key === '' && hasComposedKey(form.type) && form.storedType !== form.type)
    return { problem: 'channel.validation.nameAndKey' };
  if (form.type !== CHANNEL_TYPE.proxy && form.models.length === 0)
    return { problem: 'channel.validation.models' };
  const modelMapping = form.modelMapping.trim();
  if (modelMapping !== '' && !isValidJson(modelMapping))
    return { problem: 'channel.validation.modelMapping' };
  if (form.groups.length === 0) return { problem: 'channel.validation.groups' };
  const weight = wholeNumber(form.weight);
  const other =
    form.type === CHANNEL_TYPE.azure && form.other.trim() === '' ? DEFAULT_AZURE_API_VERSION : form.other;
  return {
    input: {
      type: form.type,
      name,
      key,
      base_url: normaliseBaseUrl(form.baseUrl),
      other,
      models: form.models.join(','),
      group: form.groups.join(','),
      model_mapping: modelMapping,
      system_prompt: form.systemPrompt,
      config: configText(form),
      test_model: form.testModel.trim(),
      priority: wholeNumber(form.priority),
      weight: weight === undefined ? undefined : Math.max(weight, 0),
    },
  };
};

/** The form of a loaded channel: the key stays blank (blank keeps the stored key). */
export const channelFormOf = (channel: Channel): ChannelFormState => {
  const stored = jsonObjectOf(channel.config);
  const config = { ...EMPTY_CONFIG };
  const otherConfig: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(stored)) {
    const field = CONFIG_FIELDS.find((candidate) => candidate === name);
    if (field) config[field] = typeof value === 'string' ? value : '';
    else otherConfig[name] = value;
  }
  const mapping = channel.model_mapping.trim();
  const parsedMapping = mapping === '' ? undefined : parseJson(mapping);
  const groups = splitCommaList(channel.group);
  return {
    type: channel.type,
    name: channel.name,
    key: '',
    batch: false,
    baseUrl: channel.base_url,
    other: channel.other,
    models: splitCommaList(channel.models),
    groups: groups.length > 0 ? groups : ['default'],
    modelMapping: parsedMapping === undefined ? mapping : JSON.stringify(parsedMapping, null, 2),
    systemPrompt: channel.system_prompt,
    config,
    otherConfig,
    priority: channel.priority,
    weight: channel.weight,
    testModel: channel.test_model,
    storedType: channel.type,
  };
};

/** Spec §9: the example model mapping shown as a hint. */
export const MODEL_MAPPING_EXAMPLE = JSON.stringify(
  { 'gpt-3.5-turbo-0301': 'gpt-3.5-turbo', 'gpt-4-0314': 'gpt-4', 'gpt-4-32k-0314': 'gpt-4-32k' },
  null,
  2,
);
