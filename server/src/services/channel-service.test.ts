import {
  createChannelRequestSchema,
  updateChannelRequestSchema,
  type Channel,
} from '@sluice/contract/schemas/channel';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { channelBody, clearChannels, readAbilities, readChannels } from '../test-support/channel-fixtures.js';
import { testDialects } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';
import type { ChannelService } from './channel-service.js';

describe.each(testDialects())('channel service on %s', (dialect) => {
  let test: TestSluice;
  let channels: ChannelService;
  const db = () => test.sluice.database.db;

  beforeAll(async () => {
    test = await startTestSluice(dialect);
    channels = test.sluice.services.channels;
  });
  afterAll(() => test?.close());
  beforeEach(() => clearChannels(db()));

  const create = async (overrides: Record<string, unknown> = {}): Promise<Channel> => {
    const [id] = await channels.create(createChannelRequestSchema.parse(channelBody(overrides)));
    return channels.get(id!);
  };
  const update = (body: Record<string, unknown>) => channels.update(updateChannelRequestSchema.parse(body));
  const abilitiesOf = async (channelId: number) =>
    (await readAbilities(db()))
      .filter((row) => row.channel_id === channelId)
      .map(
        ({ group, model, enabled, priority }) => `${group}/${model}/${enabled ? 'on' : 'off'}/${priority}`,
      );

  it('rebuilds the abilities on every update: models, groups, status and priority', async () => {
    const channel = await create({ models: 'm1,m2', group: 'default' });
    const other = await create({ name: 'other', models: 'm1', group: 'vip' });
    expect(await abilitiesOf(channel.id)).toEqual(['default/m1/on/0', 'default/m2/on/0']);

    await update({ id: channel.id, models: 'm2, m3 ,m2,', group: 'default,vip' });
    expect(await abilitiesOf(channel.id)).toEqual([
      'default/m2/on/0',
      'default/m3/on/0',
      'vip/m2/on/0',
      'vip/m3/on/0',
    ]);
    await update({ id: channel.id, status: 2 });
    expect(await abilitiesOf(channel.id)).toEqual([
      'default/m2/off/0',
      'default/m3/off/0',
      'vip/m2/off/0',
      'vip/m3/off/0',
    ]);
    await update({ id: channel.id, status: 1, priority: 7 });
    expect(await abilitiesOf(channel.id)).toEqual([
      'default/m2/on/7',
      'default/m3/on/7',
      'vip/m2/on/7',
      'vip/m3/on/7',
    ]);
    await update({ id: channel.id, group: 'svip', models: 'm9' });
    expect(await abilitiesOf(channel.id)).toEqual(['svip/m9/on/7']);
    await update({ id: channel.id, status: 3 });
    expect(await abilitiesOf(channel.id)).toEqual(['svip/m9/off/7']);
    expect(await abilitiesOf(other.id)).toEqual(['vip/m1/on/0']);
  });

  it('leaves every field an update does not carry alone', async () => {
    const channel = await create({
      base_url: 'https://x.test',
      model_mapping: '{"a":"b"}',
      weight: 3,
      priority: 2,
    });
    const [stored] = await readChannels(db());
    expect(await update({ id: channel.id, weight: 5 })).toEqual({ ...channel, weight: 5 });
    expect(await update({ id: channel.id })).toEqual({ ...channel, weight: 5 });
    const [after] = await readChannels(db());
    expect(after).toEqual({ ...stored, weight: 5 });
  });

  it('refuses an unknown id without writing anything', async () => {
    await expect(channels.get(12345)).rejects.toThrow('channel does not exist');
    await expect(update({ id: 12345, status: 2 })).rejects.toThrow('channel does not exist');
    await expect(channels.remove(12345)).rejects.toThrow('channel does not exist');
    expect(await readAbilities(db())).toEqual([]);
  });

  it('searches by id or by a literal name prefix', async () => {
    const names = ['a%b', 'a_b', 'axb', 'a!b', '100%', 'Zed'];
    const ids = new Map<string, number>();
    for (const name of names) ids.set(name, (await create({ name, key: `sk-${name}` })).id);
    const found = async (keyword: string) => (await channels.search(keyword)).map((row) => row.name).sort();
    expect(await found('a%')).toEqual(['a%b']);
    expect(await found('a_')).toEqual(['a_b']);
    expect(await found('a!')).toEqual(['a!b']);
    expect(await found('%')).toEqual([]);
    expect(await found('_')).toEqual([]);
    expect(await found("a'")).toEqual([]);
    expect(await found('10')).toEqual(['100%']);
    expect(await found('')).toEqual([...names].sort());
    const zed = ids.get('Zed')!;
    expect((await channels.search(String(zed))).map((row) => row.id)).toContain(zed);
    const rows = await channels.search('a');
    expect(rows.map((row) => row.id)).toEqual([...rows.map((row) => row.id)].sort((x, y) => y - x));
    for (const row of rows) expect(row.key).toBe('');
  });

  it('lists the models of a group from enabled abilities only, sorted and distinct', async () => {
    await create({ name: 'one', models: 'zeta,alpha,mid', group: 'default,vip' });
    await create({ name: 'two', models: 'alpha,beta', group: 'default' });
    const off = await create({ name: 'off', models: 'hidden', group: 'default' });
    await update({ id: off.id, status: 2 });
    expect(await channels.availableModels('default')).toEqual(['alpha', 'beta', 'mid', 'zeta']);
    expect(await channels.availableModels('vip')).toEqual(['alpha', 'mid', 'zeta']);
    expect(await channels.availableModels('nobody')).toEqual([]);
  });
});
