import { describe, expect, it } from 'vitest';
import { composedKey, mergedConfig, publicConfig } from './channel-config.js';

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
