import { jsonObjectOf, mappedModel } from '@sluice/contract/channel-config';
import {
  QUOTA_TYPE,
  type BillingUnit,
  type PriceSet,
  type PricingRow,
} from '@sluice/contract/schemas/pricing';
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import {
  imageQuota,
  ratiosFor,
  speechQuota,
  transcriptQuota,
  type RatioOptions,
  type Ratios,
} from './billing-ratios.js';
import { computeQuota, groupRatio } from './ratio.js';
import type { ServiceDeps } from './service-deps.js';

/** The owner of a model on a channel type (GET /v1/models' owned_by): a port the relay's registry fills. */
export type ModelOwner = (model: string, channelType: number) => string;

/** Tokens (or characters) a price is given for. */
export const PRICE_SCALE = 1_000_000;

/** How a model is billed, by its name (the relay bills by the endpoint; these are the models made for one). */
const BILLING_UNIT_RULES: readonly (readonly [RegExp, BillingUnit])[] = [
  [/^(dall-e-|gpt-image-|cogview|wanx|ali-stable-diffusion|stable-diffusion|flux|imagen)/i, 'image'],
  [/^tts-/, 'characters'],
  [/^whisper-/, 'transcript'],
];

export const billingUnitOf = (model: string): BillingUnit =>
  BILLING_UNIT_RULES.find(([pattern]) => pattern.test(model))?.[1] ?? 'tokens';

const NONE: PriceSet = { input: null, output: null, cache_read: null, cache_write: null, image: null };

/** One million tokens through the billing's own formula, the prompt's cache tokens at their ratios. */
const tokenQuota = (
  ratios: Ratios,
  tokens: { prompt?: number; completion?: number; read?: number; write?: number },
) =>
  computeQuota({
    promptTokens: tokens.prompt ?? 0,
    completionTokens: tokens.completion ?? 0,
    modelRatio: ratios.model,
    completionRatio: ratios.completion,
    groupRatio: ratios.group,
    cacheReadTokens: tokens.read ?? 0,
    cacheReadRatio: ratios.cacheRead,
    cacheWriteTokens: tokens.write ?? 0,
    cacheWriteRatio: ratios.cacheWrite,
  });

/** The quota prices of a unit, each what the billing charges for that much (one table, no formula of its own). */
const QUOTA_PRICES: Readonly<Record<BillingUnit, (model: string, ratios: Ratios) => PriceSet>> = {
  tokens: (_model, ratios) => ({
    ...NONE,
    input: tokenQuota(ratios, { prompt: PRICE_SCALE }),
    output: tokenQuota(ratios, { completion: PRICE_SCALE }),
    cache_read: tokenQuota(ratios, { prompt: PRICE_SCALE, read: PRICE_SCALE }),
    cache_write: tokenQuota(ratios, { prompt: PRICE_SCALE, write: PRICE_SCALE }),
  }),
  image: (model, ratios) => ({ ...NONE, image: imageQuota(model, {}, ratios) }),
  characters: (_model, ratios) => ({ ...NONE, input: speechQuota(PRICE_SCALE, ratios) }),
  transcript: (_model, ratios) => ({ ...NONE, output: transcriptQuota(PRICE_SCALE, ratios) }),
};

const inDollars = (quota: PriceSet, quotaPerUnit: number): PriceSet => {
  const usd = (value: number | null) => (value === null || quotaPerUnit <= 0 ? null : value / quotaPerUnit);
  return {
    input: usd(quota.input),
    output: usd(quota.output),
    cache_read: usd(quota.cache_read),
    cache_write: usd(quota.cache_write),
    image: usd(quota.image),
  };
};

interface Served {
  readonly model: string;
  readonly type: number;
  readonly mapping: string | null;
}

/** A row of the list before its prices: a model, the name it is billed as and its ratios, with its types. */
interface Priced {
  readonly model: string;
  readonly billed: string;
  readonly ratios: Ratios;
  readonly types: Set<number>;
}

/**
 * The rows of a group: one per model and price (a model whose channel types or mappings price it
 * differently has a row per price, each naming its channel types), sorted by name.
 */
export const pricingRows = (
  served: readonly Served[],
  group: string,
  options: RatioOptions & { readonly QuotaPerUnit: number },
  ownerOf: ModelOwner,
): PricingRow[] => {
  const rows = new Map<string, Priced>();
  for (const { model, type, mapping } of served) {
    const billed = mappedModel(jsonObjectOf(mapping), model);
    const ratios = ratiosFor(billed, type, group, options);
    const key = [model, billed, ratios.model, ratios.completion, ratios.cacheRead, ratios.cacheWrite].join(
      '\u0000',
    );
    const row = rows.get(key);
    if (row) row.types.add(type);
    else rows.set(key, { model, billed, ratios, types: new Set([type]) });
  }
  return [...rows.values()]
    .map(({ model, billed, ratios, types }): PricingRow => {
      const channelTypes = [...types].sort((left, right) => left - right);
      const unit = billingUnitOf(billed);
      const quota = QUOTA_PRICES[unit](billed, ratios);
      const usd = inDollars(quota, options.QuotaPerUnit);
      return {
        model_name: model,
        owner_by: ownerOf(billed, channelTypes[0] ?? 0),
        channel_types: channelTypes,
        billed_by: unit,
        quota_type: unit === 'image' ? QUOTA_TYPE.perCall : QUOTA_TYPE.usage,
        model_ratio: ratios.model,
        completion_ratio: ratios.completion,
        cache_read_ratio: ratios.cacheRead,
        cache_write_ratio: ratios.cacheWrite,
        model_price: unit === 'image' ? (usd.image ?? 0) : 0,
        priced: ratios.priced,
        enable_groups: [group],
        quota,
        usd,
      };
    })
    .sort(
      (left, right) =>
        left.model_name.localeCompare(right.model_name) ||
        (left.channel_types[0] ?? 0) - (right.channel_types[0] ?? 0),
    );
};

/** The price list of GET /api/pricing: what the group's enabled channels serve, at the billing's prices. */
export const createPricingService = (deps: Pick<ServiceDeps, 'db' | 'options'>) => {
  const servedIn = (db: Kysely<Tables>, group: string): Promise<Served[]> =>
    db
      .selectFrom('abilities')
      .innerJoin('channels', 'channels.id', 'abilities.channel_id')
      .select(['abilities.model as model', 'channels.type as type', 'channels.model_mapping as mapping'])
      .where('abilities.group', '=', group)
      .where('abilities.enabled', '=', true)
      .execute();

  return {
    /** The group's price list, its group ratio and QuotaPerUnit. */
    list: async (group: string, ownerOf: ModelOwner) => {
      const served = await servedIn(deps.db, group);
      const options = deps.options.values;
      return {
        data: pricingRows(
          served.map((row) => ({ model: row.model, type: Number(row.type), mapping: row.mapping })),
          group,
          options,
          ownerOf,
        ),
        group,
        group_ratio: { [group]: groupRatio(group, options.GroupRatio) },
        quota_per_unit: options.QuotaPerUnit,
      };
    },
  };
};

export type PricingService = ReturnType<typeof createPricingService>;
