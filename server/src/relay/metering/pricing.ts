import { cacheReadRatio, cacheWriteRatio } from '../../services/cache-ratio.js';
import { completionRatio, computeQuota, groupRatio, modelRatio } from '../../services/ratio.js';
import type { Logger } from 'pino';
import type { OptionValues } from '../../services/option-values.js';
import type { RelayMode, Usage } from '../providers/adaptor.js';
import { cacheTokensOf } from '../providers/openai-usage.js';

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

/**
 * What a request reserves before the call: an image's full price, speech by input length, text
 * (PreConsumedQuota + prompt + max_tokens) × ratios.
 */
export const reservationFor = (
  request: { mode: RelayMode; body: Record<string, unknown>; maxTokens: number },
  model: string,
  promptEstimate: number,
  ratios: Ratios,
  preConsumed: number,
): number => {
  const ratio = ratios.model * ratios.group;
  if (request.mode === 'images') return imageQuota(model, request.body, ratios);
  if (request.mode === 'speech') {
    const input = request.body['input'];
    return Math.ceil(Buffer.byteLength(typeof input === 'string' ? input : '') * ratio);
  }
  return Math.floor((preConsumed + promptEstimate + request.maxTokens) * ratio);
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

/**
 * Text modes: one-api's formula, the prompt's cache reads and writes at their own ratios
 * (services/ratio.ts `computeQuota`, the one function that prices tokens).
 */
export const usageQuota = (usage: Usage, ratios: Ratios): number => {
  const cache = cacheTokensOf(usage);
  return computeQuota({
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    modelRatio: ratios.model,
    completionRatio: ratios.completion,
    groupRatio: ratios.group,
    cacheReadTokens: cache.read,
    cacheReadRatio: ratios.cacheRead,
    cacheWriteTokens: cache.write,
    cacheWriteRatio: ratios.cacheWrite,
  });
};

const ratioTexts = new WeakMap<Ratios, string>();

/** The log row's description of the ratios (kept with the ratios object, which is itself kept). */
export const ratioText = (ratios: Ratios): string => {
  let text = ratioTexts.get(ratios);
  if (text === undefined) {
    text = `model ratio ${ratios.model.toFixed(2)}${ratios.priced ? '' : ' (not set for this model: the default)'}, group ratio ${ratios.group.toFixed(2)}, completion ratio ${ratios.completion.toFixed(2)}`;
    ratioTexts.set(ratios, text);
  }
  return text;
};

/** A ratio as the log row says it: up to four decimals (0.1, 1.25, 0.125). */
const ratioFigure = (ratio: number): string => String(Number(ratio.toFixed(4)));

/**
 * The log row's words on the prompt's cache tokens and their prices; '' when the usage has none (the
 * row then reads as one-api's).
 */
export const cacheText = (usage: Usage, ratios: Ratios): string => {
  const cache = cacheTokensOf(usage);
  let text = '';
  if (cache.read > 0) text += `, cache read ${cache.read} tokens × ${ratioFigure(ratios.cacheRead)}`;
  if (cache.write > 0) text += `, cache write ${cache.write} tokens × ${ratioFigure(ratios.cacheWrite)}`;
  return text;
};

const warned = new Set<string>();

/** Tells the operator, once per model name, that a model is billed at the default ratio. */
export const warnIfUnpriced = (ratios: Ratios, model: string, logger: Logger): void => {
  if (ratios.priced || warned.has(model)) return;
  if (warned.size >= 1000) warned.clear();
  warned.add(model);
  logger.warn(
    { model, ratio: ratios.model },
    'no model ratio is set for this model: it is billed at the default ratio (set one under Settings)',
  );
};
