import type { Logger } from 'pino';
import { imageQuota, speechQuota, type Ratios } from '../../services/billing-ratios.js';
import { computeQuota } from '../../services/ratio.js';
import type { RelayMode, Usage } from '../providers/adaptor.js';
import { cacheTokensOf } from '../providers/openai-usage.js';

/** The ratios and unit prices live in services/billing-ratios.ts, shared with the price list. */
export {
  imageQuota,
  ratiosFor,
  speechQuota,
  transcriptQuota,
  type RatioOptions,
  type Ratios,
} from '../../services/billing-ratios.js';

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
    return speechQuota(Buffer.byteLength(typeof input === 'string' ? input : ''), ratios);
  }
  return Math.floor((preConsumed + promptEstimate + request.maxTokens) * ratio);
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
