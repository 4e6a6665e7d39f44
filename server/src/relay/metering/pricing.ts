import { completionRatio, computeQuota, groupRatio, modelRatio } from '../../services/ratio.js';
import type { Logger } from 'pino';
import type { OptionValues } from '../../services/option-values.js';
import type { RelayMode, Usage } from '../providers/adaptor.js';

export interface Ratios {
  readonly model: number;
  readonly completion: number;
  readonly group: number;
  /** False when no ratio is set for the model: it is billed at the default (one-api's 30). */
  readonly priced: boolean;
}

type RatioOptions = Pick<OptionValues, 'ModelRatio' | 'CompletionRatio' | 'GroupRatio'>;

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

/** Text modes: one-api's formula. */
export const usageQuota = (usage: Usage, ratios: Ratios): number =>
  computeQuota({
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    modelRatio: ratios.model,
    completionRatio: ratios.completion,
    groupRatio: ratios.group,
  });

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
