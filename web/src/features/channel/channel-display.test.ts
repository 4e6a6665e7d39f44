// @vitest-environment happy-dom
import { CHANNEL_TYPE, CHANNEL_TYPES } from '@sluice/contract/channel-types';
import { describe, expect, it } from 'vitest';
import {
  badgeColor,
  balanceText,
  channelTypeLabel,
  channelTypeOf,
  priorityOf,
  RESPONSE_TIME_COLORS,
  responseSeconds,
  responseTimeLevel,
  weightOf,
} from './channel-display.js';

describe('response-time badge (spec §4)', () => {
  it('is grey when untested, then green up to 1000 ms, olive to 3000, yellow to 5000, red above', () => {
    expect(responseTimeLevel(0)).toBe('untested');
    expect(responseTimeLevel(0, 0)).toBe('untested');
    expect(responseTimeLevel(0, 1_700_000_000)).toBe('failed');
    expect(responseTimeLevel(800, 1_700_000_000)).toBe('green');
    expect(responseTimeLevel(1)).toBe('green');
    expect(responseTimeLevel(1000)).toBe('green');
    expect(responseTimeLevel(1001)).toBe('olive');
    expect(responseTimeLevel(3000)).toBe('olive');
    expect(responseTimeLevel(3001)).toBe('yellow');
    expect(responseTimeLevel(5000)).toBe('yellow');
    expect(responseTimeLevel(5001)).toBe('red');
    expect(responseTimeLevel(60_000)).toBe('red');
  });

  it('shows seconds with two decimals in Mantine colours', () => {
    expect(responseSeconds(1234)).toBe('1.23');
    expect(responseSeconds(45)).toBe('0.04');
    expect(RESPONSE_TIME_COLORS).toEqual({
      untested: 'gray',
      failed: 'red',
      green: 'green',
      olive: 'lime',
      yellow: 'yellow',
      red: 'red',
    });
  });
});

describe('balance display per type (spec §9)', () => {
  it('shows dollars for OpenAI and custom channels', () => {
    expect(balanceText(CHANNEL_TYPE.openAi, 87.655)).toMatch(/^\$87\.6[56]$/);
    expect(balanceText(CHANNEL_TYPE.custom, 5)).toBe('$5.00');
  });

  it('shows yuan for CloseAI, API2GPT and SiliconFlow, and yuan divided by 10000 for OpenAI-SB', () => {
    expect(balanceText(CHANNEL_TYPE.closeAi, 12.5)).toBe('¥12.50');
    expect(balanceText(CHANNEL_TYPE.api2gpt, 0)).toBe('¥0.00');
    expect(balanceText(CHANNEL_TYPE.siliconFlow, 3.456)).toBe('¥3.46');
    expect(balanceText(CHANNEL_TYPE.openAiSb, 123_456)).toBe('¥12.35');
  });

  it('shows an abbreviated quota for AI Proxy and AIGC2D', () => {
    expect(balanceText(CHANNEL_TYPE.aiProxy, 25_000)).toBe('25.0k');
    expect(balanceText(CHANNEL_TYPE.aigc2d, 2_500_000)).toBe('2.5M');
    expect(balanceText(CHANNEL_TYPE.aigc2d, 999)).toBe('999');
  });

  it('has no balance for other types', () => {
    const others = [
      CHANNEL_TYPE.api2d,
      CHANNEL_TYPE.azure,
      CHANNEL_TYPE.anthropic,
      CHANNEL_TYPE.openRouter,
      CHANNEL_TYPE.aws,
      CHANNEL_TYPE.deepSeek,
      CHANNEL_TYPE.vertexAi,
      CHANNEL_TYPE.proxy,
      CHANNEL_TYPE.xai,
    ];
    for (const type of others) expect(balanceText(type, 10)).toBeUndefined();
  });
});

describe('inline priority and weight (spec §5)', () => {
  it('ignores a blank or unreadable priority and keeps negative priorities', () => {
    expect(priorityOf('')).toBeUndefined();
    expect(priorityOf('  ')).toBeUndefined();
    expect(priorityOf('abc')).toBeUndefined();
    expect(priorityOf('5')).toBe(5);
    expect(priorityOf('-3')).toBe(-3);
    expect(priorityOf('2.7')).toBe(2);
  });

  it('clamps a negative weight to 0', () => {
    expect(weightOf('')).toBeUndefined();
    expect(weightOf('-4')).toBe(0);
    expect(weightOf('10')).toBe(10);
  });
});

describe('channel types', () => {
  it('label every catalogue type with a Mantine colour', () => {
    expect(channelTypeOf(CHANNEL_TYPE.openAi)?.text).toBe('OpenAI');
    expect(channelTypeOf(999)).toBeUndefined();
    const palette = [
      'dark',
      'lime',
      'orange',
      'grape',
      'green',
      'blue',
      'violet',
      'teal',
      'red',
      'pink',
      'yellow',
    ];
    for (const type of CHANNEL_TYPES) expect(palette).toContain(badgeColor(type.color));
  });
});

describe('channel type labels', () => {
  it('speaks Chinese in the Chinese console and the catalogue elsewhere', () => {
    const ali = channelTypeOf(CHANNEL_TYPE.ali);
    if (!ali) throw new Error('no Alibaba type');
    expect(channelTypeLabel(ali, 'zh')).toBe('阿里通义千问');
    expect(channelTypeLabel(ali, 'en')).toBe('Alibaba Tongyi Qianwen');
    for (const type of CHANNEL_TYPES) expect(channelTypeLabel(type, 'zh'), type.text).not.toBe('');
    expect(new Set(CHANNEL_TYPES.map((type) => channelTypeLabel(type, 'zh'))).size).toBe(
      CHANNEL_TYPES.length,
    );
  });
});
