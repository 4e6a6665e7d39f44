import { OPTION_DEFINITIONS, OPTION_KEYS, isSecretOptionKey } from '@sluice/contract/option-keys';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_COMPLETION_RATIO, DEFAULT_MODEL_RATIO } from '../services/ratio-defaults.js';
import type { ApiClient } from '../test-support/api-client.js';
import { signInRoot } from '../test-support/log-fixtures.js';
import { listOptions, storedOptions, type OptionList } from '../test-support/option-fixtures.js';
import { testDialects } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';

/**
 * Issue 21: the defaults Sluice serves must be values it accepts. Every option with a default, as GET
 * /api/option/ serves it on a fresh database, is taken back unchanged by PUT /api/option/ (one by
 * one and as one batch), and GET answers exactly the same afterwards.
 */
describe.each(testDialects())('every shipped default round-trips through the option API on %s', (dialect) => {
  let test: TestSluice;
  let root: ApiClient;
  let served: OptionList;

  beforeAll(async () => {
    test = await startTestSluice(dialect);
    root = await signInRoot(test);
    served = await listOptions(root);
  });
  afterAll(() => test?.close());

  const storedRows = () => storedOptions(test);

  it('serves every public option, the ratio maps with every built-in price', () => {
    expect(served.map(({ key }) => key).sort()).toEqual(
      OPTION_KEYS.filter((key) => !isSecretOptionKey(key)).sort(),
    );
    const value = (key: string) => served.find((entry) => entry.key === key)?.value ?? '';
    expect(JSON.parse(value('ModelRatio'))).toEqual(DEFAULT_MODEL_RATIO);
    expect(JSON.parse(value('CompletionRatio'))).toEqual(DEFAULT_COMPLETION_RATIO);
    expect(JSON.parse(value('ModelRatio'))).toMatchObject({ 'gpt-4': 15 });
  });

  it('takes each served default back unchanged through PUT /api/option/', async () => {
    expect(await storedRows()).toEqual(new Map());
    for (const { key, value } of served) {
      const answer = await root.put('/api/option/', { key, value });
      expect(answer.body, `${key}: ${answer.text}`).toEqual({ success: true, message: '' });
    }
    expect(await listOptions(root)).toEqual(served);
    const stored = await storedRows();
    expect([...stored.keys()].sort()).toEqual(served.map(({ key }) => key).sort());
    for (const { key, value } of served) {
      const kind = OPTION_DEFINITIONS[key as keyof typeof OPTION_DEFINITIONS].kind;
      if (kind === 'json') expect(JSON.parse(stored.get(key) ?? ''), key).toEqual(JSON.parse(value));
    }
  });

  it('takes them all back in one PUT /api/option/batch', async () => {
    const answer = await root.put('/api/option/batch', served);
    expect(answer.body, answer.text).toEqual({ success: true, message: '' });
    expect(await listOptions(root)).toEqual(served);
  });

  it('answers the same defaults from GET /api/option/defaults, whatever is stored', async () => {
    expect(await listOptions(root, '/api/option/defaults')).toEqual(served);
    const changed = await root.put('/api/option/', { key: 'ModelRatio', value: '{"gpt-4": 20}' });
    expect(changed.body.success, changed.text).toBe(true);
    expect(await listOptions(root, '/api/option/defaults')).toEqual(served);
  });

  it("keeps the operator's prices of a one-api map that holds a negative ratio, and serves it savable", async () => {
    // What a one-api database holds after its console saved the ratios once: its defaults
    // (openrouter/auto at -500000 among them) with the operator's prices.
    const oneApiMap = { ...DEFAULT_MODEL_RATIO, 'gpt-4': 20, 'openrouter/auto': -500000, 'my-model': 3 };
    await test.sluice.database.db
      .updateTable('options')
      .set({ value: JSON.stringify(oneApiMap) })
      .where('key', '=', 'ModelRatio')
      .execute();
    await test.sluice.services.options.reload();
    const inForce = test.sluice.services.options.values.ModelRatio;
    expect(inForce['gpt-4']).toBe(20);
    expect(inForce['my-model']).toBe(3);
    expect(Object.hasOwn(inForce, 'openrouter/auto')).toBe(false);

    const list = await listOptions(root);
    const modelRatio = list.find(({ key }) => key === 'ModelRatio')?.value ?? '';
    const { 'openrouter/auto': _negative, ...valid } = oneApiMap;
    expect(JSON.parse(modelRatio)).toEqual(valid);
    const saved = await root.put('/api/option/', { key: 'ModelRatio', value: modelRatio });
    expect(saved.body, saved.text).toEqual({ success: true, message: '' });
    expect(await listOptions(root)).toEqual(list);
  });

  it('shows a stored group ratio with a bad entry as it is in force', async () => {
    await test.sluice.database.db
      .updateTable('options')
      .set({ value: '{"default":1,"vip":-2,"svip":0.5}' })
      .where('key', '=', 'GroupRatio')
      .execute();
    await test.sluice.services.options.reload();
    expect(test.sluice.services.options.values.GroupRatio).toEqual({ default: 1, svip: 0.5 });
    const list = await listOptions(root);
    const groupRatio = list.find(({ key }) => key === 'GroupRatio')?.value ?? '';
    expect(JSON.parse(groupRatio)).toEqual({ default: 1, svip: 0.5 });
    const saved = await root.put('/api/option/', { key: 'GroupRatio', value: groupRatio });
    expect(saved.body, saved.text).toEqual({ success: true, message: '' });
  });
});
