import { CHANNEL_TYPE, CHANNEL_TYPE_IDS } from '@sluice/contract/channel-types';
import { describe, expect, it } from 'vitest';
// A test may cross-check the two data tables; adaptor code itself never imports services.
import { DEFAULT_MODEL_RATIO } from '../../services/ratio-defaults.js';
import { PROVIDERS, providerOf } from './registry.js';

const catalogue = [...CHANNEL_TYPE_IDS].sort((a, b) => a - b);
const modelsOf = (type: number) => providerOf(type)?.models ?? [];

/** Types that speak OpenAI's API and offer OpenAI's models. */
const OPENAI_TYPES = [
  CHANNEL_TYPE.openAi,
  CHANNEL_TYPE.api2d,
  CHANNEL_TYPE.azure,
  CHANNEL_TYPE.closeAi,
  CHANNEL_TYPE.openAiSb,
  CHANNEL_TYPE.openAiMax,
  CHANNEL_TYPE.ohMyGpt,
  CHANNEL_TYPE.custom,
  CHANNEL_TYPE.ails,
  CHANNEL_TYPE.aiProxy,
  CHANNEL_TYPE.api2gpt,
  CHANNEL_TYPE.aigc2d,
  CHANNEL_TYPE.openRouter,
  CHANNEL_TYPE.aiProxyLibrary,
  CHANNEL_TYPE.fastGpt,
];

describe('the provider registry', () => {
  it('has a row for every channel type of the catalogue, and no other, each under its own id', () => {
    expect(
      Object.keys(PROVIDERS)
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual(catalogue);
    for (const [type, provider] of Object.entries(PROVIDERS)) {
      expect(provider.type).toBe(Number(type));
      expect(CHANNEL_TYPE[provider.name]).toBe(provider.type);
    }
  });

  it.each(catalogue)('type %i lists no model twice', (type) => {
    const models = modelsOf(type);
    expect(new Set(models).size).toBe(models.length);
  });

  it('gives the OpenAI-compatible types the OpenAI list', () => {
    for (const type of OPENAI_TYPES) expect(modelsOf(type)).toEqual(modelsOf(CHANNEL_TYPE.openAi));
  });

  it('prices every model of the OpenAI list', () => {
    const unpriced = modelsOf(CHANNEL_TYPE.openAi).filter(
      (name) => !Object.hasOwn(DEFAULT_MODEL_RATIO, name),
    );
    expect(unpriced).toEqual([]);
  });

  it('has no default models for Coze and Proxy', () => {
    expect(modelsOf(CHANNEL_TYPE.coze)).toEqual([]);
    expect(modelsOf(CHANNEL_TYPE.proxy)).toEqual([]);
  });

  it('lists each Cohere model with and without web search', () => {
    const cohere = modelsOf(CHANNEL_TYPE.cohere);
    expect(cohere).toContain('command-r-plus');
    expect(cohere).toContain('command-r-plus-internet');
    expect(cohere).toHaveLength(12);
  });

  it('lists the keys of the Bedrock id map for AWS (one-api’s 12, and the Claude models since)', () => {
    expect(modelsOf(CHANNEL_TYPE.aws)).toContain('claude-3-5-sonnet-latest');
    expect(modelsOf(CHANNEL_TYPE.aws)).toContain('llama3-70b-8192');
    expect(modelsOf(CHANNEL_TYPE.aws)).toContain('claude-sonnet-4-5-20250929');
    expect(modelsOf(CHANNEL_TYPE.aws)).toHaveLength(19);
  });

  it('lists the 33 Workers AI models for Cloudflare', () => {
    expect(modelsOf(CHANNEL_TYPE.cloudflare)).toHaveLength(33);
    expect(modelsOf(CHANNEL_TYPE.cloudflare)).toContain('@cf/meta/llama-3.1-8b-instruct');
  });

  it('names the owners one-api reports, lower-cased', () => {
    expect(providerOf(CHANNEL_TYPE.openAi)?.owner).toBe('openai');
    expect(providerOf(CHANNEL_TYPE.palm)?.owner).toBe('google palm');
    expect(providerOf(CHANNEL_TYPE.gemini)?.owner).toBe('google gemini');
    expect(providerOf(CHANNEL_TYPE.cohere)?.owner).toBe('cohere');
    for (const provider of Object.values(PROVIDERS))
      expect(provider.owner).toBe(provider.owner.toLowerCase());
  });

  it('reads balances for one-api’s list of types only', () => {
    const withBalance = Object.values(PROVIDERS)
      .filter((provider) => provider.balance !== undefined)
      .map((provider) => provider.type)
      .sort((a, b) => a - b);
    expect(withBalance).toEqual(
      [
        CHANNEL_TYPE.openAi,
        CHANNEL_TYPE.closeAi,
        CHANNEL_TYPE.openAiSb,
        CHANNEL_TYPE.custom,
        CHANNEL_TYPE.aiProxy,
        CHANNEL_TYPE.api2gpt,
        CHANNEL_TYPE.aigc2d,
        CHANNEL_TYPE.openRouter,
        CHANNEL_TYPE.deepSeek,
        CHANNEL_TYPE.siliconFlow,
      ].sort((a, b) => a - b),
    );
  });

  it('says what the legacy `other` column holds, as one-api did', () => {
    const meanings = Object.fromEntries(
      Object.values(PROVIDERS)
        .filter((provider) => provider.otherField !== undefined)
        .map((provider) => [provider.name, provider.otherField]),
    );
    expect(meanings).toEqual({
      azure: 'api_version',
      xunfei: 'api_version',
      gemini: 'api_version',
      aiProxyLibrary: 'library_id',
      ali: 'plugin',
    });
  });
});
