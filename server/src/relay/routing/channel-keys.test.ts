import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describe, expect, it } from 'vitest';
import { providerOf } from '../providers/registry.js';
import { channelMetaOf } from './channel-meta.js';
import { keyIdOf, pickKey, refuseKey } from './channel-keys.js';
import type { ChannelRow } from './relay-index.js';

const rowOf = (type: number, key: string, config: Record<string, unknown> = {}): ChannelRow => ({
  id: 7,
  type,
  key,
  status: 1,
  name: 'c',
  weight: 0,
  created_time: 0,
  test_time: 0,
  response_time: 0,
  base_url: 'http://127.0.0.1:1',
  other: '',
  balance: 0,
  balance_updated_time: 0,
  models: 'm',
  group: 'default',
  used_quota: 0,
  model_mapping: '',
  priority: 0,
  config: JSON.stringify(config),
  system_prompt: '',
  test_model: '',
});

const pick = (row: ChannelRow, random?: () => number) =>
  pickKey(row, providerOf(row.type), undefined, random);

const SERVICE_ACCOUNT = JSON.stringify(
  {
    type: 'service_account',
    client_email: 'a@b.iam',
    private_key: '-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n',
  },
  null,
  2,
);

describe('pickKey', () => {
  it('hands a single-key channel its cached meta, the key exactly as stored, with no id', () => {
    const row = rowOf(CHANNEL_TYPE.openAi, ' sk-single ');
    const picked = pick(row);
    expect(picked.channel).toBe(channelMetaOf(row, providerOf(row.type)));
    expect(picked.channel.key).toBe(' sk-single ');
    expect(picked.id).toBeUndefined();
    expect(pick(row)).toBe(picked);
  });

  it('never splits Vertex AI’s service account, Bedrock’s or a composite key that does not fit', () => {
    for (const [type, key] of [
      [CHANNEL_TYPE.vertexAi, `us-central1|project|${SERVICE_ACCOUNT}`],
      [CHANNEL_TYPE.vertexAi, SERVICE_ACCOUNT],
      [CHANNEL_TYPE.aws, 'AKIA|secret|us-east-1'],
      [CHANNEL_TYPE.baidu, 'ak|sk'],
      [CHANNEL_TYPE.baidu, 'ak|sk\nak2|sk2|extra'],
      [CHANNEL_TYPE.xunfei, 'app|secret|key'],
    ] as const) {
      const picked = pick(rowOf(type, key));
      expect(picked.channel.key).toBe(key);
      expect(picked.id).toBeUndefined();
    }
  });

  it('rotates over every key evenly, round-robin by default', () => {
    const row = rowOf(CHANNEL_TYPE.openAi, 'k1\nk2\nk3\nk4');
    const counts = new Map<string, number>();
    for (let turn = 0; turn < 400; turn += 1) {
      const key = pick(row).channel.key;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    expect([...counts.entries()].sort()).toEqual([
      ['k1', 100],
      ['k2', 100],
      ['k3', 100],
      ['k4', 100],
    ]);
  });

  it('splits Baidu’s, Spark’s and Hunyuan’s composite keys line by line when each line is whole', () => {
    const baidu = rowOf(CHANNEL_TYPE.baidu, 'a|b\nqianfan-v2-key');
    expect([pick(baidu).channel.key, pick(baidu).channel.key]).toEqual(['a|b', 'qianfan-v2-key']);
    const row = rowOf(CHANNEL_TYPE.xunfei, 'a|b|c\nd|e|f');
    expect([pick(row).channel.key, pick(row).channel.key]).toEqual(['a|b|c', 'd|e|f']);
  });

  it('picks at random when the config says so, and skips refused keys', () => {
    const row = rowOf(CHANNEL_TYPE.openAi, 'k1\nk2\nk3', {
      key_selection: 'random',
      disabled_keys: { [keyIdOf('k2')]: { reason: 'refused', at: 1 } },
    });
    expect(pick(row, () => 0).channel.key).toBe('k1');
    expect(pick(row, () => 0.99).channel.key).toBe('k3');
    expect(pick(row, () => 0.99).id).toBe(keyIdOf('k3'));
    expect(refuseKey(row, 0)).toBe(1);
    expect(pick(row, () => 0).channel.key).toBe('k3');
    // Every key refused: all take turns again (the channel's fate is one-api's auto-disable).
    expect(refuseKey(row, 2)).toBe(0);
    expect(new Set([0, 0.5, 0.99].map((point) => pick(row, () => point).channel.key))).toEqual(
      new Set(['k1', 'k2', 'k3']),
    );
  });
});
