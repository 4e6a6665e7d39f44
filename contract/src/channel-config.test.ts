import { describe, expect, it } from 'vitest';
import { CHANNEL_TYPE } from './channel-types.js';
import {
  channelTimeoutProblem,
  composedKey,
  mergedConfig,
  publicConfig,
  timeoutSecondsOf,
} from './channel-config.js';
import { createChannelRequestSchema, updateChannelRequestSchema } from './schemas/channel.js';

describe('channel config secrets', () => {
  it('answers the config without sk and vertex_ai_adc, and nothing of a config that is not an object', () => {
    expect(publicConfig('{"region":"us","ak":"A","sk":"S"}')).toBe('{"region":"us","ak":"A"}');
    expect(publicConfig('{"vertex_ai_adc":"{}","region":"r"}')).toBe('{"region":"r"}');
    expect(publicConfig('{"user_id":"u"}')).toBe('{"user_id":"u"}');
    expect(publicConfig('{}')).toBe('{}');
    expect(publicConfig('')).toBe('');
    expect(publicConfig(null)).toBe('');
    expect(publicConfig('not json sk=S')).toBe('');
    expect(publicConfig('["S"]')).toBe('');
  });

  it('keeps a stored secret that the update leaves out or blank, and takes a new one', () => {
    const stored = '{"region":"us","ak":"A","sk":"S"}';
    expect(JSON.parse(mergedConfig(stored, '{"region":"eu","ak":"A"}'))).toEqual({
      region: 'eu',
      ak: 'A',
      sk: 'S',
    });
    expect(JSON.parse(mergedConfig(stored, '{"region":"eu","sk":""}'))).toEqual({ region: 'eu', sk: 'S' });
    expect(JSON.parse(mergedConfig(stored, '{"sk":"T"}'))).toEqual({ sk: 'T' });
    expect(JSON.parse(mergedConfig(stored, ''))).toEqual({ sk: 'S' });
    expect(mergedConfig('{"region":"us"}', '')).toBe('');
    expect(mergedConfig(null, '{"a":1}')).toBe('{"a":1}');
  });

  it('composes the AWS and Vertex AI keys once every part is there', () => {
    expect(composedKey(33, '{"region":"us","ak":"A","sk":"S"}')).toBe('A|S|us');
    expect(composedKey(33, '{"region":"us","ak":"A"}')).toBeUndefined();
    expect(composedKey(42, '{"region":"r","vertex_ai_project_id":"p","vertex_ai_adc":"{}"}')).toBe('r|p|{}');
    expect(composedKey(1, '{"region":"us","ak":"A","sk":"S"}')).toBeUndefined();
  });
});

describe('channel config timeouts', () => {
  it('reads seconds as a number or a number in text; unset when absent, blank or 0; NaN otherwise', () => {
    expect(timeoutSecondsOf(15)).toBe(15);
    expect(timeoutSecondsOf(' 2.5 ')).toBe(2.5);
    for (const unset of [undefined, null, '', 0, '0']) expect(timeoutSecondsOf(unset)).toBeUndefined();
    for (const wrong of [-1, 'soon', true, {}, 86_401, Number.POSITIVE_INFINITY])
      expect(timeoutSecondsOf(wrong)).toBeNaN();
  });

  it('names the first timeout field that is not one', () => {
    expect(channelTimeoutProblem({ region: 'x', connect_timeout: 3 })).toBeUndefined();
    expect(channelTimeoutProblem({ first_byte_timeout: 'soon' })).toMatch(
      /^config\.first_byte_timeout must be/,
    );
  });

  it('refuses such a config on create and update, and takes any other config (one-api’s fields)', () => {
    const base = { type: CHANNEL_TYPE.openAi, name: 'c', key: 'sk-1' };
    expect(createChannelRequestSchema.safeParse({ ...base, config: '{"idle_timeout":-5}' }).success).toBe(
      false,
    );
    expect(updateChannelRequestSchema.safeParse({ id: 1, config: '{"connect_timeout":"x"}' }).success).toBe(
      false,
    );
    expect(
      createChannelRequestSchema.safeParse({
        ...base,
        config: '{"region":"us","user_id":"","idle_timeout":"60"}',
      }).success,
    ).toBe(true);
    expect(createChannelRequestSchema.safeParse({ ...base, config: '' }).success).toBe(true);
  });
});
