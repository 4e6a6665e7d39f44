import { CHANNEL_TYPE_IDS } from '@sluice/contract/channel-types';
import { describe, expect, it } from 'vitest';
// A test may cross-check the two data tables; adaptor code itself never imports services.
import { DEFAULT_MODEL_RATIO } from '../../services/ratio-defaults.js';
import { DEFAULT_MODELS, OWNER_OF_TYPE } from './provider-models.js';

const sortedIds = (table: Readonly<Record<number, unknown>>): number[] =>
  Object.keys(table)
    .map(Number)
    .sort((a, b) => a - b);

const catalogue = [...CHANNEL_TYPE_IDS].sort((a, b) => a - b);

/** Types that speak OpenAI's API and offer OpenAI's models. */
const OPENAI_TYPES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 20, 21, 22];

describe('DEFAULT_MODELS', () => {
  it('has a row for every channel type of the catalogue, and no other', () => {
    expect(sortedIds(DEFAULT_MODELS)).toEqual(catalogue);
  });

  it.each(catalogue)('type %i lists no model twice', (type) => {
    const models = DEFAULT_MODELS[type] ?? [];
    expect(new Set(models).size).toBe(models.length);
  });

  it('gives the OpenAI-compatible types the OpenAI list', () => {
    const openai = DEFAULT_MODELS[1];
    for (const type of OPENAI_TYPES) expect(DEFAULT_MODELS[type]).toEqual(openai);
  });

  it('prices every model of the OpenAI list', () => {
    const unpriced = (DEFAULT_MODELS[1] ?? []).filter((name) => !Object.hasOwn(DEFAULT_MODEL_RATIO, name));
    expect(unpriced).toEqual([]);
  });

  it('has no default models for Coze and Proxy', () => {
    expect(DEFAULT_MODELS[34]).toEqual([]);
    expect(DEFAULT_MODELS[43]).toEqual([]);
  });

  it('lists each Cohere model with and without web search', () => {
    const cohere = DEFAULT_MODELS[35] ?? [];
    expect(cohere).toContain('command-r-plus');
    expect(cohere).toContain('command-r-plus-internet');
    expect(cohere).toHaveLength(12);
  });

  it('lists the keys of the Bedrock id map for AWS', () => {
    expect(DEFAULT_MODELS[33]).toContain('claude-3-5-sonnet-latest');
    expect(DEFAULT_MODELS[33]).toContain('llama3-70b-8192');
    expect(DEFAULT_MODELS[33]).toHaveLength(12);
  });

  it('lists the 33 Workers AI models for Cloudflare', () => {
    expect(DEFAULT_MODELS[37]).toHaveLength(33);
    expect(DEFAULT_MODELS[37]).toContain('@cf/meta/llama-3.1-8b-instruct');
  });
});

describe('OWNER_OF_TYPE', () => {
  it('names an owner for every channel type of the catalogue, and no other', () => {
    expect(sortedIds(OWNER_OF_TYPE)).toEqual(catalogue);
  });

  it('uses the adaptor names one-api reports, lower-cased', () => {
    expect(OWNER_OF_TYPE[1]).toBe('openai');
    expect(OWNER_OF_TYPE[11]).toBe('google palm');
    expect(OWNER_OF_TYPE[24]).toBe('google gemini');
    expect(OWNER_OF_TYPE[35]).toBe('cohere');
    for (const owner of Object.values(OWNER_OF_TYPE)) expect(owner).toBe(owner.toLowerCase());
  });
});
