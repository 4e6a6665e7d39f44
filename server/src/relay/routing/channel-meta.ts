import { jsonObjectOf, mappedModel } from '@sluice/contract/channel-config';
import type { ChannelMeta } from '../providers/adaptor.js';
import type { Provider } from '../providers/registry.js';
import type { ChannelRow } from './relay-index.js';

/** Worked out once per row: the routing index replaces a row object whenever its channel changes. */
const metas = new WeakMap<ChannelRow, ChannelMeta>();
const mappings = new WeakMap<ChannelRow, Record<string, unknown>>();

/** The channel as adaptors see it: base URL (or the type's default), config with legacy `other`. */
export const channelMetaOf = (row: ChannelRow, provider: Provider | undefined): ChannelMeta => {
  let meta = metas.get(row);
  if (!meta) {
    meta = buildMeta(row, provider);
    metas.set(row, meta);
  }
  return meta;
};

const buildMeta = (row: ChannelRow, provider: Provider | undefined): ChannelMeta => {
  const config: Record<string, string> = {};
  for (const [name, value] of Object.entries(jsonObjectOf(row.config)))
    if (typeof value === 'string' && value !== '') config[name] = value;
  const other = (row.other ?? '').trim();
  // one-api kept one field of some types in the legacy `other` column; the registry names which.
  if (other !== '' && provider?.otherField) config[provider.otherField] ??= other;
  return Object.freeze({
    id: row.id,
    type: row.type,
    key: row.key,
    baseUrl: ((row.base_url ?? '').trim() || provider?.baseUrl || '').replace(/\/+$/, ''),
    config: Object.freeze(config),
  });
};

/** The channel's model mapping: a requested name maps to a non-empty upstream name, or stays. */
export const mapModel = (row: ChannelRow, model: string): string => {
  let mapping = mappings.get(row);
  if (!mapping) {
    mapping = jsonObjectOf(row.model_mapping);
    mappings.set(row, mapping);
  }
  return mappedModel(mapping, model);
};

/** Applies the channel's system prompt: replaces a leading system message or prepends one. */
export const withSystemPrompt = (body: Record<string, unknown>, prompt: string): Record<string, unknown> => {
  const messages = Array.isArray(body['messages']) ? [...(body['messages'] as unknown[])] : [];
  const first = messages[0] as { role?: unknown } | undefined;
  if (first?.role === 'system') messages[0] = { ...first, content: prompt };
  else messages.unshift({ role: 'system', content: prompt });
  return { ...body, messages };
};
