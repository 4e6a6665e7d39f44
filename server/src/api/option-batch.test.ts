import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { ROLES } from '@sluice/contract/roles';
import { OPTION_BATCH_MAX } from '@sluice/contract/schemas/option';
import { CHANNEL_STATUS } from '@sluice/contract/statuses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type ApiClient } from '../test-support/api-client.js';
import { signInNewUser, signInRoot } from '../test-support/log-fixtures.js';
import { listOptions, storedOptions, type OptionList } from '../test-support/option-fixtures.js';
import { testDialects } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';
import { ROOT_ONLY_OPTION } from './option-routes.js';

/**
 * PUT /api/option/batch: a settings section saved all or nothing (issue 21: the ratio section used
 * to stop at its first refused option, its later edits silently lost). Also the ratio editor's
 * data: GET /api/option/defaults and GET /api/channel/served_models.
 */
describe.each(testDialects())('PUT /api/option/batch on %s', (dialect) => {
  let test: TestSluice;
  let root: ApiClient;
  let admin: ApiClient;

  beforeAll(async () => {
    test = await startTestSluice(dialect);
    root = await signInRoot(test);
    admin = (await signInNewUser(test, 'batch_admin', ROLES.admin)).client;
  });
  afterAll(() => test?.close());

  const storedRows = () => storedOptions(test);
  const listed = (client: ApiClient = root): Promise<OptionList> => listOptions(client);

  /** Refused with HTTP 200 success:false and `message`; nothing stored, listed or in force changed. */
  const expectRefused = async (body: unknown, message: string | RegExp, client: ApiClient = root) => {
    const rows = await storedRows();
    const list = await listed();
    const values = structuredClone(test.sluice.services.options.values);
    const answer = await client.put('/api/option/batch', body);
    expect(answer.status).toBe(200);
    expect(answer.body.success, answer.text).toBe(false);
    if (typeof message === 'string') expect(answer.body.message).toBe(message);
    else expect(answer.body.message).toMatch(message);
    expect(await storedRows()).toEqual(rows);
    expect(await listed()).toEqual(list);
    expect(test.sluice.services.options.values).toEqual(values);
  };

  it('writes every option of a section and applies them at once', async () => {
    const answer = await root.put('/api/option/batch', [
      { key: 'ModelRatio', value: '{"gpt-4": 20}' },
      { key: 'CompletionRatio', value: '{"gpt-4": 2.5}' },
      { key: 'GroupRatio', value: '{"default": 1, "vip": 0.5}' },
    ]);
    expect(answer.body, answer.text).toEqual({ success: true, message: '' });
    const rows = await storedRows();
    expect(rows.get('ModelRatio')).toBe('{"gpt-4": 20}');
    expect(rows.get('CompletionRatio')).toBe('{"gpt-4": 2.5}');
    expect(rows.get('GroupRatio')).toBe('{"default": 1, "vip": 0.5}');
    const values = test.sluice.services.options.values;
    expect(values.ModelRatio).toEqual({ 'gpt-4': 20 });
    expect(values.GroupRatio).toEqual({ default: 1, vip: 0.5 });
    const shown = new Map((await listed()).map(({ key, value }) => [key, value]));
    expect(JSON.parse(shown.get('ModelRatio') ?? '')).toMatchObject({ 'gpt-4': 20, 'gpt-4o': 2.5 });
  });

  it('writes nothing when one ratio map has an entry that is not a ratio, and names it', async () => {
    await expectRefused(
      [
        { key: 'GroupRatio', value: '{"default": 1, "vip": 0.25}' },
        { key: 'ModelRatio', value: '{"gpt-4": 30, "x": -1}' },
        { key: 'CompletionRatio', value: '{"gpt-4": 3}' },
      ],
      'ModelRatio: "x" must be a non-negative number',
    );
    await expectRefused(
      [
        { key: 'ModelRatio', value: '{"gpt-4": 30}' },
        { key: 'CompletionRatio', value: '{"gpt-4": "3"}' },
      ],
      'CompletionRatio: "gpt-4" must be a non-negative number',
    );
    await expectRefused(
      [
        { key: 'ModelRatio', value: '{"gpt-4": 30}' },
        { key: 'GroupRatio', value: '{"default": 1,' },
      ],
      'GroupRatio is not a valid JSON string',
    );
    await expectRefused(
      [
        { key: 'QuotaForNewUser', value: '100' },
        { key: 'QuotaPerUnit', value: 'abc' },
      ],
      'QuotaPerUnit must be a number',
    );
  });

  it('names the bad entry on the single-option PUT too', async () => {
    const answer = await root.put('/api/option/', {
      key: 'ModelRatio',
      value: '{"gpt-4": 15, "auto": -500000}',
    });
    expect(answer.body).toEqual({
      success: false,
      message: 'ModelRatio: "auto" must be a non-negative number',
    });
  });

  it("checks a login method's prerequisites against the batch's own values", async () => {
    await expectRefused([{ key: 'GitHubOAuthEnabled', value: 'true' }], /GitHub Client Id/);
    const answer = await root.put('/api/option/batch', [
      { key: 'GitHubOAuthEnabled', value: 'true' },
      { key: 'GitHubClientId', value: 'Iv1.batch' },
    ]);
    expect(answer.body, answer.text).toEqual({ success: true, message: '' });
    expect((await apiClient(test.sluice.app).get('/api/status')).body.data).toMatchObject({
      github_oauth: true,
      github_client_id: 'Iv1.batch',
    });
  });

  it('refuses a body that is not a list of distinct options', async () => {
    await expectRefused({ key: 'SystemName', value: 'x' }, /^invalid parameter/);
    await expectRefused([], /^invalid parameter: at least one option/);
    await expectRefused(
      [
        { key: 'SystemName', value: 'a' },
        { key: 'SystemName', value: 'b' },
      ],
      /^invalid parameter: each key at most once/,
    );
    await expectRefused([{ key: 'SystemName', value: 42 }], /^invalid parameter: 0\.value/);
    await expectRefused(
      Array.from({ length: OPTION_BATCH_MAX + 1 }, (_, index) => ({ key: `Key${index}`, value: 'x' })),
      new RegExp(`^invalid parameter: at most ${OPTION_BATCH_MAX}`),
    );
  });

  it("refuses an administrator's batch holding a root-only option, naming it, and writes nothing", async () => {
    await expectRefused(
      [
        { key: 'ModelRatio', value: '{"gpt-4": 40}' },
        { key: 'SMTPServer', value: 'smtp.attacker.example' },
      ],
      `SMTPServer: ${ROOT_ONLY_OPTION}`,
      admin,
    );
    const answer = await admin.put('/api/option/batch', [
      { key: 'ModelRatio', value: '{"gpt-4": 40}' },
      { key: 'GroupRatio', value: '{"default": 1}' },
    ]);
    expect(answer.body, answer.text).toEqual({ success: true, message: '' });
    expect(test.sluice.services.options.values.ModelRatio).toEqual({ 'gpt-4': 40 });
  });

  it("answers the shipped defaults, an administrator's options only", async () => {
    const defaults = new Map(
      ((await root.get('/api/option/defaults')).body.data as OptionList).map(({ key, value }) => [
        key,
        value,
      ]),
    );
    expect(JSON.parse(defaults.get('ModelRatio') ?? '')).toMatchObject({ 'gpt-4': 15 });
    expect(defaults.get('SMTPServer')).toBe('');
    expect(defaults.has('SMTPToken')).toBe(false);
    const forAdmin = await listOptions(admin, '/api/option/defaults');
    expect(forAdmin.map(({ key }) => key)).toContain('ModelRatio');
    expect(forAdmin.map(({ key }) => key)).not.toContain('SMTPServer');
  });

  it('lists the models of every channel, enabled or not, sorted and distinct', async () => {
    const create = async (name: string, models: string) => {
      const answer = await root.post('/api/channel/', {
        name,
        type: CHANNEL_TYPE.openAi,
        key: `sk-${name}`,
        models,
        group: 'default,vip',
      });
      expect(answer.body.success, answer.text).toBe(true);
    };
    expect((await root.get('/api/channel/served_models')).body).toEqual({
      success: true,
      message: '',
      data: [],
    });
    await create('served-a', 'gpt-4,my-model');
    await create('served-b', 'my-model,zeta-model,alpha-model');
    const channels = (await root.get('/api/channel/search?keyword=served-b')).body.data as { id: number }[];
    const disabled = await root.put('/api/channel/', {
      id: channels[0]?.id,
      status: CHANNEL_STATUS.manuallyDisabled,
    });
    expect(disabled.body.success, disabled.text).toBe(true);
    expect((await root.get('/api/channel/served_models')).body.data).toEqual([
      'alpha-model',
      'gpt-4',
      'my-model',
      'zeta-model',
    ]);
  });
});
