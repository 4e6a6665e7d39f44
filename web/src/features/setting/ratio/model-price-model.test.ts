import { usdPerMillionTokens } from '@sluice/contract/model-pricing';
import { describe, expect, it } from 'vitest';
import {
  editRow,
  filterRows,
  formatRatio,
  formatUsd,
  missingCount,
  parseRatioText,
  priceRows,
  ratioText,
  resetRow,
  rowPrices,
  type PriceMaps,
} from './model-price-model.js';

const DEFAULTS: PriceMaps = {
  model: { 'gpt-4': 15, 'gpt-4o-mini': 0.075, 'llama3-8b-8192': 0.1 },
  completion: { 'llama3-8b-8192(33)': 2 },
};

/** What the form holds: the defaults as GET /api/option/ shows them, with the operator's changes. */
const FORM: PriceMaps = {
  model: { 'gpt-4': 20, 'gpt-4o-mini': 0.075, 'llama3-8b-8192': 0.1, 'my-model': 3 },
  completion: { 'llama3-8b-8192(33)': 2, 'my-model': 1.5 },
};

const row = (maps: PriceMaps, model: string, served: readonly string[] = []) => {
  const found = priceRows(maps, DEFAULTS, served).find((candidate) => candidate.model === model);
  if (!found) throw new Error(`no row ${model}`);
  return found;
};

describe('the per-model price rows', () => {
  it('lists every model of the maps, the defaults and the channels once, sorted', () => {
    const rows = priceRows(FORM, DEFAULTS, ['served-only', 'gpt-4']);
    expect(rows.map((candidate) => candidate.model)).toEqual([
      'gpt-4',
      'gpt-4o-mini',
      'llama3-8b-8192',
      'llama3-8b-8192(33)',
      'my-model',
      'served-only',
    ]);
    expect(rows.map((candidate) => candidate.id)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('tells default, changed and missing prices apart', () => {
    expect(row(FORM, 'gpt-4o-mini')).toMatchObject({
      state: 'default',
      resettable: false,
      modelRatio: 0.075,
    });
    expect(row(FORM, 'gpt-4')).toMatchObject({ state: 'custom', resettable: true, modelRatio: 20 });
    expect(row(FORM, 'my-model')).toMatchObject({ state: 'custom', modelRatio: 3, completionRatio: 1.5 });
    expect(row(FORM, 'served-only', ['served-only'])).toMatchObject({
      state: 'missing',
      served: true,
      modelRatio: undefined,
    });
  });

  it("prices a deleted built-in at its default, as the server's lookups do", () => {
    const { 'gpt-4': _deleted, ...model } = FORM.model;
    expect(row({ ...FORM, model }, 'gpt-4')).toMatchObject({ modelRatio: 15, resettable: true });
  });

  it('reads a qualified key through its plain model, and the rules for the completion ratio', () => {
    expect(row(FORM, 'llama3-8b-8192(33)')).toMatchObject({ modelRatio: 0.1, completionRatio: 2 });
    expect(row(FORM, 'gpt-4')).toMatchObject({ completionRatio: undefined, ruleCompletion: 2 });
    expect(row(FORM, 'gpt-4o-mini').ruleCompletion).toBe(4);
  });

  it('filters by any part of the name, the changed rows, and the served models without a ratio', () => {
    const rows = priceRows(FORM, DEFAULTS, ['served-only', 'gpt-4', 'other-missing']);
    expect(filterRows(rows, ' GPT-4 ', 'all').map((candidate) => candidate.model)).toEqual([
      'gpt-4',
      'gpt-4o-mini',
    ]);
    expect(filterRows(rows, '', 'changed').map((candidate) => candidate.model)).toEqual([
      'gpt-4',
      'my-model',
    ]);
    expect(filterRows(rows, '', 'missing').map((candidate) => candidate.model)).toEqual([
      'other-missing',
      'served-only',
    ]);
    expect(missingCount(rows)).toBe(2);
  });
});

describe('editing the maps', () => {
  it('sets a row in its place, removes an emptied entry, and appends a new model', () => {
    const edited = editRow(FORM, 'gpt-4', { modelRatio: 25, completionRatio: undefined });
    expect(Object.entries(edited.model)).toEqual(Object.entries({ ...FORM.model, 'gpt-4': 25 }));
    expect(edited.completion).toEqual(FORM.completion);
    const added = editRow(FORM, 'new-model', { modelRatio: 1, completionRatio: 2 });
    expect(Object.keys(added.model).at(-1)).toBe('new-model');
    expect(added.completion['new-model']).toBe(2);
    const emptied = editRow(FORM, 'my-model', { modelRatio: undefined, completionRatio: undefined });
    expect(Object.hasOwn(emptied.model, 'my-model')).toBe(false);
    expect(Object.hasOwn(emptied.completion, 'my-model')).toBe(false);
  });

  it('resets a row to the shipped entries, or to none where nothing is shipped', () => {
    expect(resetRow(FORM, DEFAULTS, 'gpt-4').model['gpt-4']).toBe(15);
    const reset = resetRow(FORM, DEFAULTS, 'my-model');
    expect(Object.hasOwn(reset.model, 'my-model')).toBe(false);
    expect(Object.hasOwn(reset.completion, 'my-model')).toBe(false);
    expect(row(resetRow(FORM, DEFAULTS, 'gpt-4'), 'gpt-4')).toMatchObject({
      state: 'default',
      resettable: false,
    });
  });

  it('round-trips the form text, empty as {}, and refuses a map with a negative entry', () => {
    expect(parseRatioText('')).toEqual({});
    expect(parseRatioText(ratioText(FORM.model))).toEqual(FORM.model);
    expect(ratioText({})).toBe('');
    expect(ratioText({ a: 1 })).toBe('{\n  "a": 1\n}');
    expect(parseRatioText('{"a": -1}')).toBeUndefined();
    expect(parseRatioText('{"a": ')).toBeUndefined();
    expect(parseRatioText('[1]')).toBeUndefined();
  });
});

describe('prices', () => {
  it("uses one-api's unit: ratio 1 is $2 per 1M tokens, output × the completion ratio", () => {
    expect(usdPerMillionTokens(1)).toBe(2);
    expect(rowPrices(15, 2)).toEqual({ input: 30, output: 60 });
    expect(rowPrices(0.075, 4)).toEqual({ input: 0.15, output: 0.6 });
    expect(rowPrices(undefined, 1)).toBeUndefined();
  });

  it('formats dollars and ratios readably', () => {
    expect(formatUsd(30)).toBe('$30.00');
    expect(formatUsd(1234.5)).toBe('$1,234.50');
    expect(formatUsd(0.15)).toBe('$0.15');
    expect(formatUsd(0.00568)).toBe('$0.0057');
    expect(formatUsd(0)).toBe('$0');
    expect(formatRatio(0.79 / 0.59)).toBe('1.33898');
    expect(formatRatio(15)).toBe('15');
  });
});
