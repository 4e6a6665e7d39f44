import { cacheReadRatio, cacheWriteRatio } from './cache-ratio.js';
import type { OptionValues } from './option-values.js';
import { completionRatio, groupRatio, modelRatio } from './ratio.js';

/**
 * The ratios a request is billed by and the unit prices of the modes that are not billed by tokens
 * (images, speech, transcripts): the relay's settlement (`relay/metering/pricing.ts`) and the price
 * list (`pricing-service.ts`) both price with these, so the list says what the bill will be.
 */
export interface Ratios {
  readonly model: number;
  readonly completion: number;
  readonly group: number;
  /** The price of a prompt token read from the provider's cache, relative to an uncached one. */
  readonly cacheRead: number;
  /** The price of a prompt token written to the provider's cache, relative to an uncached one. */
  readonly cacheWrite: number;
  /** False when no ratio is set for the model: it is billed at the default (one-api's 30). */
  readonly priced: boolean;
}

export type RatioOptions = Pick<
  OptionValues,
  'ModelRatio' | 'CompletionRatio' | 'GroupRatio' | 'CacheReadRatio' | 'CacheWriteRatio'
>;

/** Ratios already worked out, per options object (a new one replaces it on every change of the options). */
const known = new WeakMap<RatioOptions, Map<string, Ratios>>();

/** The ratios that price a model on a channel type for a group (worked out once per options). */
export const ratiosFor = (
  model: string,
  channelType: number,
  group: string,
  options: RatioOptions,
): Ratios => {
  let table = known.get(options);
  if (!table) {
    table = new Map();
    known.set(options, table);
  }
  const key = `${channelType}\u0000${group}\u0000${model}`;
  let ratios = table.get(key);
  if (!ratios) {
    const found = modelRatio(model, channelType, options.ModelRatio);
    ratios = Object.freeze({
      model: found.ratio,
      priced: found.known,
      completion: completionRatio(model, channelType, options.CompletionRatio),
      group: groupRatio(group, options.GroupRatio),
      cacheRead: cacheReadRatio(model, channelType, options.CacheReadRatio),
      cacheWrite: cacheWriteRatio(model, channelType, options.CacheWriteRatio),
    });
    // Bounded: model names come from clients, so a flood of new names must not grow it for ever.
    if (table.size >= 10_000) table.clear();
    table.set(key, ratios);
  }
  return ratios;
};

/** one-api's image sizes: the cost factor of each size of each model (others cost 1). */
const IMAGE_SIZE_RATIO: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  'dall-e-2': { '256x256': 1, '512x512': 1.125, '1024x1024': 1.25 },
  'dall-e-3': { '1024x1024': 1, '1024x1792': 2, '1792x1024': 2 },
};

/** Images: trunc(model × group × size × 1000) × n, dall-e-3 `hd` ×2 at 1024x1024 else ×1.5. */
export const imageQuota = (model: string, body: Record<string, unknown>, ratios: Ratios): number => {
  const size = typeof body['size'] === 'string' ? body['size'] : '1024x1024';
  const n = typeof body['n'] === 'number' ? body['n'] : 1;
  let factor = IMAGE_SIZE_RATIO[model]?.[size] ?? 1;
  if (model === 'dall-e-3' && body['quality'] === 'hd') factor *= size === '1024x1024' ? 2 : 1.5;
  return Math.trunc(ratios.model * ratios.group * factor * 1000) * n;
};

/** Speech (one-api): the input's bytes × model × group ratio, rounded up. */
export const speechQuota = (inputBytes: number, ratios: Ratios): number =>
  Math.ceil(inputBytes * (ratios.model * ratios.group));

/** A transcription or translation: the transcript's tokens × model × group ratio, rounded up. */
export const transcriptQuota = (tokens: number, ratios: Ratios): number =>
  Math.ceil(tokens * ratios.model * ratios.group);
