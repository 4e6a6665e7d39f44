import { describe, expect, it } from 'vitest';
import { CHANNEL_TYPE } from './channel-types.js';
import {
  channelKeysOf,
  disabledKeysOf,
  keySelectionOf,
  keySelectionProblem,
  maskedKey,
  withStoredKeyStates,
} from './channel-keys.js';

const serviceAccount = JSON.stringify(
  {
    type: 'service_account',
    project_id: 'p',
    private_key: '-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\n',
  },
  null,
  2,
);

describe('channelKeysOf', () => {
  it('keeps a single key exactly as stored', () => {
    expect(channelKeysOf(CHANNEL_TYPE.openAi, ' sk-one ')).toEqual([' sk-one ']);
  });

  it('splits one key per line, trimmed, blank lines dropped', () => {
    expect(channelKeysOf(CHANNEL_TYPE.openAi, 'sk-a\r\n\n  sk-b \nsk-c\n')).toEqual(['sk-a', 'sk-b', 'sk-c']);
  });

  it('never splits a JSON key or a type whose credentials live in config', () => {
    expect(channelKeysOf(CHANNEL_TYPE.vertexAi, serviceAccount)).toEqual([serviceAccount]);
    expect(channelKeysOf(CHANNEL_TYPE.openAi, serviceAccount)).toEqual([serviceAccount]);
    expect(channelKeysOf(CHANNEL_TYPE.aws, 'ak|sk|us-east-1\nak2|sk2|us-east-1')).toEqual([
      'ak|sk|us-east-1\nak2|sk2|us-east-1',
    ]);
  });

  it('splits composite keys only when every line has its type’s parts', () => {
    expect(channelKeysOf(CHANNEL_TYPE.baidu, 'ak|sk\nak2|sk2')).toEqual(['ak|sk', 'ak2|sk2']);
    expect(channelKeysOf(CHANNEL_TYPE.baidu, 'ak|sk|x\nak2|sk2')).toEqual(['ak|sk|x\nak2|sk2']);
    expect(channelKeysOf(CHANNEL_TYPE.xunfei, 'a|b|c\nd|e|f')).toEqual(['a|b|c', 'd|e|f']);
    expect(channelKeysOf(CHANNEL_TYPE.xunfei, 'a|b|c\nd|e')).toEqual(['a|b|c\nd|e']);
    expect(channelKeysOf(CHANNEL_TYPE.tencent, 'a||c\nd|e|f')).toEqual(['a||c\nd|e|f']);
  });

  it('keeps a key whose lines hold blanks (a PEM block, prose) whole', () => {
    const pem = '-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----';
    expect(channelKeysOf(CHANNEL_TYPE.openAi, pem)).toEqual([pem]);
  });
});

describe('key selection and disabled keys', () => {
  it('defaults to round-robin and checks the field', () => {
    expect(keySelectionOf({})).toBe('round-robin');
    expect(keySelectionOf({ key_selection: 'random' })).toBe('random');
    expect(keySelectionProblem({ key_selection: 'random' })).toBeUndefined();
    expect(keySelectionProblem({ key_selection: 'fastest' })).toMatch(/key_selection/);
  });

  it('reads disabled keys, nothing from a malformed field', () => {
    expect(disabledKeysOf({ disabled_keys: { abc: { reason: 'r', at: 1 } } })).toEqual({
      abc: { reason: 'r', at: 1 },
    });
    expect(disabledKeysOf({ disabled_keys: 'x' })).toEqual({});
  });

  it('masks every key', () => {
    expect(maskedKey('sk-short')).toBe('…');
    expect(maskedKey('sk-abcdefghijklmnopqrstuvwxyz')).toBe('…wxyz');
  });
});

describe('withStoredKeyStates', () => {
  const stored = JSON.stringify({ region: 'x', disabled_keys: { abc: { reason: 'r', at: 1 } } });

  it('keeps the stored key states whatever the write sends', () => {
    expect(JSON.parse(withStoredKeyStates(stored, '{"region":"y"}'))).toEqual({
      region: 'y',
      disabled_keys: { abc: { reason: 'r', at: 1 } },
    });
    expect(
      JSON.parse(withStoredKeyStates('{}', '{"region":"y","disabled_keys":{"old":{"reason":"","at":2}}}')),
    ).toEqual({
      region: 'y',
    });
  });

  it('stores a config without key states exactly as sent', () => {
    expect(withStoredKeyStates('{"a":1}', ' {"b": 2} ')).toBe(' {"b": 2} ');
    expect(withStoredKeyStates(null, '')).toBe('');
  });
});
