import { OPTION_DEFINITIONS, OPTION_KEYS, type OptionDefinition } from '@sluice/contract/option-keys';
import { isRatio } from '@sluice/contract/ratio-map';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CACHE_READ_RATIO, DEFAULT_CACHE_WRITE_RATIO } from './cache-ratio.js';
import { validateOptionValue } from './option-values.js';
import { DEFAULT_COMPLETION_RATIO, DEFAULT_MODEL_RATIO } from './ratio-defaults.js';

const TABLES = {
  DEFAULT_MODEL_RATIO,
  DEFAULT_COMPLETION_RATIO,
  DEFAULT_CACHE_READ_RATIO,
  DEFAULT_CACHE_WRITE_RATIO,
};

describe('the shipped pricing tables', () => {
  it.each(Object.entries(TABLES))('%s holds only ratios (finite, 0 or more)', (_name, table) => {
    expect(Object.keys(table).length).toBeGreaterThan(0);
    expect(Object.entries(table).filter(([, ratio]) => !isRatio(ratio))).toEqual([]);
  });

  it("ships no price for OpenRouter's auto router (one-api's -500000 is not a price)", () => {
    expect(Object.hasOwn(DEFAULT_MODEL_RATIO, 'openrouter/auto')).toBe(false);
  });

  it.each(Object.entries(TABLES))('%s is accepted whole as its option value', (_name, table) => {
    expect(() =>
      validateOptionValue('ModelRatio', OPTION_DEFINITIONS.ModelRatio, JSON.stringify(table)),
    ).not.toThrow();
  });

  it.each(OPTION_KEYS)('the default of %s passes its own check', (key) => {
    const definition: OptionDefinition = OPTION_DEFINITIONS[key];
    expect(() => validateOptionValue(key, definition, definition.defaultValue)).not.toThrow();
  });
});
