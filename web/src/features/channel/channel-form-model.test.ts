// @vitest-environment happy-dom
import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describe, expect, it } from 'vitest';
import { channelRecord } from '../../test-support/channel-record.js';
import {
  canBatch,
  channelFormOf,
  channelInputOf,
  composeKey,
  configText,
  DEFAULT_AZURE_API_VERSION,
  EMPTY_CHANNEL_FORM,
  normaliseBaseUrl,
  type ChannelFormState,
} from './channel-form-model.js';

const form = (change: Partial<ChannelFormState>): ChannelFormState => ({
  ...EMPTY_CHANNEL_FORM,
  name: 'primary',
  key: 'sk-abc',
  models: ['gpt-4o-mini'],
  ...change,
});
const config = (change: Partial<ChannelFormState['config']>) => ({ ...EMPTY_CHANNEL_FORM.config, ...change });
const input = (state: ChannelFormState, editing = false) => {
  const result = channelInputOf(state, editing);
  if ('problem' in result) throw new Error(result.problem);
  return result.input;
};

describe('key composition (spec §5)', () => {
  it('composes AWS as ak|sk|region once all three are filled', () => {
    const aws = form({
      type: CHANNEL_TYPE.aws,
      key: '',
      config: config({ ak: ' AKIA1 ', sk: 'secret', region: 'us-west-2' }),
    });
    expect(composeKey(aws)).toBe('AKIA1|secret|us-west-2');
    expect(input(aws).key).toBe('AKIA1|secret|us-west-2');
    expect(composeKey({ ...aws, config: config({ ak: 'AKIA1', region: 'us-west-2' }) })).toBe('');
  });

  it('composes Vertex AI as region|project id|ADC JSON', () => {
    const adc = '{"type":"service_account","project_id":"p1"}';
    const vertex = form({
      type: CHANNEL_TYPE.vertexAi,
      key: 'typed before switching',
      config: config({ region: 'us-east5', vertex_ai_project_id: 'p1', vertex_ai_adc: adc }),
    });
    expect(composeKey(vertex)).toBe(`us-east5|p1|${adc}`);
    expect(composeKey({ ...vertex, config: config({ region: 'us-east5' }) })).toBe('');
  });

  it('stores the type’s sub-fields in config, keeping unknown fields', () => {
    const aws = form({
      type: CHANNEL_TYPE.aws,
      config: config({ ak: 'a', sk: 's', region: 'r', user_id: 'ignored' }),
      otherConfig: { extra: 1 },
    });
    expect(JSON.parse(configText(aws))).toEqual({ extra: 1, region: 'r', ak: 'a', sk: 's' });
    expect(configText(form({ type: CHANNEL_TYPE.cloudflare, config: config({ user_id: ' acct ' }) }))).toBe(
      '{"user_id":"acct"}',
    );
    expect(configText(form({ type: CHANNEL_TYPE.openAi, config: config({ region: 'x' }) }))).toBe('');
  });

  it('sends one key per line when batch-creating, never for AWS nor on edit', () => {
    expect(input(form({ batch: true, key: ' sk-1 \n\n sk-2\n' })).key).toBe('sk-1\nsk-2');
    expect(input(form({ batch: false, key: ' sk-1 ' })).key).toBe('sk-1');
    expect(canBatch(CHANNEL_TYPE.openAi, false)).toBe(true);
    expect(canBatch(CHANNEL_TYPE.aws, false)).toBe(false);
    expect(canBatch(CHANNEL_TYPE.openAi, true)).toBe(false);
  });
});

describe('base URL and defaults (spec §5)', () => {
  it('removes trailing slashes from the base URL', () => {
    expect(normaliseBaseUrl('https://api.example.com/')).toBe('https://api.example.com');
    expect(normaliseBaseUrl(' https://api.example.com/v1// ')).toBe('https://api.example.com/v1');
    expect(normaliseBaseUrl('')).toBe('');
    expect(input(form({ baseUrl: 'http://127.0.0.1:9000/' })).base_url).toBe('http://127.0.0.1:9000');
  });

  it('gives Azure the default api version when other is empty', () => {
    expect(input(form({ type: CHANNEL_TYPE.azure, other: '' })).other).toBe(DEFAULT_AZURE_API_VERSION);
    expect(DEFAULT_AZURE_API_VERSION).toBe('2024-03-01-preview');
    expect(input(form({ type: CHANNEL_TYPE.azure, other: '2024-06-01' })).other).toBe('2024-06-01');
    expect(input(form({ type: CHANNEL_TYPE.openAi, other: '' })).other).toBe('');
  });

  it('sends models and groups as comma lists, a blank priority or weight as absent, a negative weight as 0', () => {
    const body = input(form({ models: ['a', 'b'], groups: ['default', 'vip'], priority: '', weight: -5 }));
    expect(body).toMatchObject({ models: 'a,b', group: 'default,vip', priority: undefined, weight: 0 });
    expect(input(form({ priority: 3, weight: '' }))).toMatchObject({ priority: 3, weight: undefined });
  });
});

describe('validation messages (spec §5)', () => {
  const problem = (state: ChannelFormState, editing = false) => {
    const result = channelInputOf(state, editing);
    return 'problem' in result ? result.problem : undefined;
  };

  it('needs a name and a key on creation only', () => {
    expect(problem(form({ name: ' ' }))).toBe('channel.validation.nameAndKey');
    expect(problem(form({ key: '' }))).toBe('channel.validation.nameAndKey');
    expect(problem(form({ type: CHANNEL_TYPE.aws, key: 'ignored' }))).toBe('channel.validation.nameAndKey');
    expect(problem(form({ key: '' }), true)).toBeUndefined();
  });

  it('keeps stored AWS secrets only on an AWS channel: one turned into AWS needs every part', () => {
    const parts = config({ ak: 'AKIA1', region: 'us-west-2' });
    expect(
      problem(form({ type: CHANNEL_TYPE.aws, key: '', config: parts, storedType: CHANNEL_TYPE.aws }), true),
    ).toBeUndefined();
    expect(
      problem(
        form({ type: CHANNEL_TYPE.aws, key: '', config: parts, storedType: CHANNEL_TYPE.openAi }),
        true,
      ),
    ).toBe('channel.validation.nameAndKey');
    const whole = config({ ak: 'AKIA1', sk: 'secret', region: 'us-west-2' });
    expect(
      problem(
        form({ type: CHANNEL_TYPE.aws, key: '', config: whole, storedType: CHANNEL_TYPE.openAi }),
        true,
      ),
    ).toBeUndefined();
  });

  it('needs a model unless the type is Proxy', () => {
    expect(problem(form({ models: [] }))).toBe('channel.validation.models');
    expect(problem(form({ type: CHANNEL_TYPE.proxy, models: [] }))).toBeUndefined();
  });

  it('needs valid JSON in the model mapping, and a group', () => {
    expect(problem(form({ modelMapping: '{"a": ' }))).toBe('channel.validation.modelMapping');
    expect(problem(form({ modelMapping: '{"gpt-4-0314": "gpt-4"}' }))).toBeUndefined();
    expect(problem(form({ groups: [] }))).toBe('channel.validation.groups');
  });
});

describe('editing a loaded channel', () => {
  const channel = channelRecord({
    id: 7,
    type: CHANNEL_TYPE.aws,
    name: 'bedrock',
    weight: 2,
    models: 'claude-3-haiku,claude-3-sonnet',
    group: '',
    model_mapping: '{"a":"b"}',
    priority: 1,
    config: '{"region":"us-west-2","ak":"AKIA","sk":"s3cret","extra":true}',
  });

  it('leaves the key blank, splits lists, pretty-prints the mapping and reads the config', () => {
    const state = channelFormOf(channel);
    expect(state.key).toBe('');
    expect(state.models).toEqual(['claude-3-haiku', 'claude-3-sonnet']);
    expect(state.groups).toEqual(['default']);
    expect(state.modelMapping).toBe('{\n  "a": "b"\n}');
    expect(state.config).toMatchObject({ region: 'us-west-2', ak: 'AKIA', sk: 's3cret' });
    expect(state.otherConfig).toEqual({ extra: true });
    expect(input(state, true)).toMatchObject({
      key: 'AKIA|s3cret|us-west-2',
      model_mapping: '{\n  "a": "b"\n}',
    });
  });
});
