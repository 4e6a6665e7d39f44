import { CHANNEL_STATUS } from '@sluice/contract/statuses';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { nowSeconds } from '../lib/time.js';
import { startOpenAiDouble, type OpenAiDouble } from '../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture } from '../test-support/relay-fixture.js';
import { startSmtpSink, type SmtpSink } from '../test-support/smtp-sink.js';
import { testDialects } from '../test-support/test-databases.js';
import { startWebhookReceiver, type WebhookReceiver } from '../test-support/webhook-receiver.js';
import { signAlert, verifyAlert } from './alert-signature.js';

const SECRET = 'alert-secret-0123456789';

describe.each(testDialects())('alerts by webhook and mail on %s', (dialect) => {
  let fixture: RelayFixture;
  let receiver: WebhookReceiver;
  let smtp: SmtpSink;
  let serial = 0;
  const rootEmail = `root-alerts-${dialect}@example.com`;
  const sluice = () => fixture.test.sluice;
  const db = () => sluice().database.db;
  const setOptions = async (values: Record<string, string>) => {
    for (const [key, value] of Object.entries(values)) await sluice().services.options.update(key, value);
  };
  const channelStatus = async (id: number) =>
    (await db().selectFrom('channels').select('status').where('id', '=', id).executeTakeFirstOrThrow())
      .status;
  const hooksAbout = (event: string, key: string, id: number) =>
    receiver.received.filter((hook) => hook.body.event === event && hook.body.data[key] === id);
  const deliveries = async (query = '') => {
    const answer = await fixture.root.get(`/api/alert/deliveries?size=100${query}`);
    expect(answer.body.success, answer.text).toBe(true);
    return answer.body as { data: Record<string, unknown>[]; total: number };
  };

  /** A channel that alone serves a model, its upstream a double that a test can make fail. */
  const lonelyChannel = async () => {
    const upstream = await startOpenAiDouble();
    serial += 1;
    const model = `alert-only-${serial}`;
    const name = `alerting-${serial}`;
    const id = await fixture.channel({ name, base_url: upstream.url, models: model });
    return { id, model, name, upstream };
  };
  /** One request that the upstream refuses with a bad key: the channel is disabled at once. */
  const failOnce = async (upstream: OpenAiDouble, model: string) => {
    upstream.failNext(1, 401, 'Incorrect API key provided');
    const { sdk } = await fixture.user();
    await sdk.chat.completions
      .create({ model, messages: [{ role: 'user', content: 'hi' }] })
      .catch(() => undefined);
    await sluice().idle();
  };
  const removeChannel = async (id: number) => {
    expect((await fixture.root.delete(`/api/channel/${id}`)).body.success).toBe(true);
  };

  beforeAll(async () => {
    [receiver, smtp] = await Promise.all([startWebhookReceiver(SECRET), startSmtpSink()]);
    fixture = await startRelayFixture(dialect);
    await db().updateTable('users').set({ email: rootEmail }).where('role', '>=', 100).execute();
  });
  afterAll(async () => {
    await fixture?.close();
    await receiver?.close();
    await smtp?.close();
  });
  beforeEach(async () => {
    receiver.status = 200;
    receiver.delayMs = 0;
    await setOptions({
      SystemName: 'Sluice Test',
      SMTPServer: smtp.host,
      SMTPPort: String(smtp.port),
      SMTPFrom: 'noreply@sluice.test',
      MessagePusherAddress: '',
      AutomaticDisableChannelEnabled: 'true',
      AutomaticEnableChannelEnabled: 'true',
      AlertWebhooks: JSON.stringify([{ name: 'ops', url: `${receiver.url}/hooks/ops`, secret: SECRET }]),
      AlertCooldownMinutes: '10',
      AlertWebhookAttempts: '3',
      AlertRetryBaseSeconds: '0.05',
    });
  });

  it('signs the body with the timestamp: a receiver refuses another secret, another body or an old time', () => {
    const now = nowSeconds();
    const body = '{"event":"test","at":1,"data":{}}';
    const signature = signAlert(SECRET, now, body);
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifyAlert(SECRET, String(now), body, signature, now)).toBe(true);
    expect(verifyAlert('another-secret-0123456789', String(now), body, signature, now)).toBe(false);
    expect(verifyAlert(SECRET, String(now), `${body} `, signature, now)).toBe(false);
    expect(verifyAlert(SECRET, String(now - 600), body, signAlert(SECRET, now - 600, body), now)).toBe(false);
  });

  it('delivers a disabled channel to the webhook, signed and logged, and mails root the same event', async () => {
    const { id, model, name, upstream } = await lonelyChannel();
    try {
      await failOnce(upstream, model);
      expect(await channelStatus(id)).toBe(CHANNEL_STATUS.autoDisabled);
      const [hook, ...more] = hooksAbout('channel.disabled', 'channel_id', id);
      expect(more).toHaveLength(0);
      expect(hook?.verified).toBe(true);
      expect(hook?.path).toBe('/hooks/ops');
      expect(hook?.headers['x-sluice-event']).toBe('channel.disabled');
      expect(hook?.body.data).toMatchObject({ channel_id: id, name });
      expect(String(hook?.body.data['reason'])).toContain('Incorrect API key provided');
      expect(Math.abs((hook?.body.at ?? 0) - nowSeconds())).toBeLessThan(60);

      const mail = await smtp.next(rootEmail);
      expect(mail.subject).toBe(`channel ${name} (#${id}) was disabled`);

      const logged = await deliveries('&event=channel.disabled');
      const row = logged.data.find((entry) => entry['object_id'] === String(id));
      expect(row).toMatchObject({
        webhook: 'ops',
        url: `${receiver.url}/…`,
        status: 'delivered',
        attempts: 1,
        response_code: 200,
        last_error: '',
      });
      expect(JSON.parse(String(row?.['body']))).toEqual(hook?.body);
      expect(hook?.headers['x-sluice-delivery']).toBe(String(row?.['id']));
    } finally {
      await removeChannel(id);
      await upstream.close();
    }
  });

  it('retries a receiver that answers 500, then records the failure; the relay answered regardless', async () => {
    receiver.status = 500;
    const { id, model, upstream } = await lonelyChannel();
    try {
      await failOnce(upstream, model);
      expect(await channelStatus(id)).toBe(CHANNEL_STATUS.autoDisabled);
      const tries = hooksAbout('channel.disabled', 'channel_id', id);
      expect(tries).toHaveLength(3);
      expect(tries.every((hook) => hook.verified)).toBe(true);
      const row = (await deliveries('&status=failed')).data.find(
        (entry) => entry['object_id'] === String(id),
      );
      expect(row).toMatchObject({ status: 'failed', attempts: 3, response_code: 500 });
      expect(String(row?.['last_error'])).toContain('500');
    } finally {
      await removeChannel(id);
      await upstream.close();
    }
  });

  it('never holds up the request that caused the alert: a slow receiver is waited for in the background', async () => {
    receiver.delayMs = 1500;
    const { id, model, upstream } = await lonelyChannel();
    try {
      upstream.failNext(1, 401, 'Incorrect API key provided');
      const { sdk } = await fixture.user();
      const started = Date.now();
      const failure = await sdk.chat.completions
        .create({ model, messages: [{ role: 'user', content: 'hi' }] })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(failure).toBeInstanceOf(Error);
      expect(Date.now() - started).toBeLessThan(1000);
      await sluice().idle();
      expect(hooksAbout('channel.disabled', 'channel_id', id)).toHaveLength(1);
    } finally {
      await removeChannel(id);
      await upstream.close();
    }
  });

  it("raises a user's low quota (QuotaRemindThreshold's reminder) to the webhook beside the user's mail", async () => {
    const upstream = await startOpenAiDouble();
    const channel = await fixture.channel({
      name: 'steady',
      base_url: upstream.url,
      models: 'gpt-3.5-turbo',
    });
    try {
      await setOptions({ QuotaRemindThreshold: '5000000' });
      const user = await fixture.user({ quota: 4_000_000 });
      const email = `low-user-${dialect}@example.com`;
      await db().updateTable('users').set({ email }).where('id', '=', user.userId).execute();
      for (let request = 0; request < 3; request += 1) {
        await user.sdk.chat.completions
          .create({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hello' }] })
          .catch(() => undefined);
        await sluice().idle();
      }
      const [hook, ...more] = hooksAbout('user.quota_low', 'user_id', user.userId);
      expect(more).toHaveLength(0);
      expect(hook?.verified).toBe(true);
      expect(hook?.body.data).toMatchObject({ threshold: 5_000_000 });
      expect((await smtp.next(email)).subject).toBe('Your quota is about to run out');
      expect(smtp.mails.filter((mail) => mail.envelopeTo.includes(email))).toHaveLength(1);
    } finally {
      await setOptions({ QuotaRemindThreshold: '1000' });
      await removeChannel(channel);
      await upstream.close();
    }
  });

  it('gives up waiting for the next attempt on shutdown, and records the delivery as failed', async () => {
    receiver.status = 500;
    await setOptions({ AlertWebhookAttempts: '5', AlertRetryBaseSeconds: '30' });
    const other = await fixture.test.boot();
    const before = receiver.received.length;
    const raised = other.services.alerts.raise({
      event: 'channel.disabled',
      objectId: '999999',
      data: { channel_id: 999_999 },
    });
    // The first attempt is over once its answer is recorded (the receiver seeing the request is not
    // enough: a stop before the answer arrives aborts that attempt instead).
    const firstRecorded = async () =>
      (await deliveries('&event=channel.disabled')).data.find(
        (entry) => entry['object_id'] === '999999' && entry['response_code'] === 500,
      );
    const deadline = Date.now() + 10_000;
    while (!(await firstRecorded()) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const started = Date.now();
    other.services.alerts.stop(); // what close() does first
    await raised;
    expect(Date.now() - started).toBeLessThan(5000);
    await other.close();
    expect(receiver.received.length - before).toBe(1);
    const row = (await deliveries('&event=channel.disabled')).data.find(
      (entry) => entry['object_id'] === '999999',
    );
    expect(row).toMatchObject({ status: 'failed', attempts: 1, response_code: 500 });
    expect(String(row?.['last_error'])).toContain('shut down');
  });

  it('holds the cooldown under a channel that flaps 10 times: one alert and one mail of each kind', async () => {
    const { id, model, name, upstream } = await lonelyChannel();
    try {
      for (let flap = 0; flap < 10; flap += 1) {
        await failOnce(upstream, model);
        expect(await channelStatus(id)).toBe(CHANNEL_STATUS.autoDisabled);
        expect((await fixture.root.get('/api/channel/test?scope=disabled')).body.success).toBe(true);
        const deadline = Date.now() + 15_000;
        while ((await channelStatus(id)) !== CHANNEL_STATUS.enabled && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 20));
        expect(await channelStatus(id)).toBe(CHANNEL_STATUS.enabled);
        await sluice().idle();
      }
      expect(hooksAbout('channel.disabled', 'channel_id', id)).toHaveLength(1);
      expect(hooksAbout('channel.enabled', 'channel_id', id)).toHaveLength(1);
      const titles = smtp.mails
        .filter((mail) => mail.subject.startsWith(`channel ${name} (#${id})`))
        .map((mail) => mail.subject);
      expect(titles.sort()).toEqual([
        `channel ${name} (#${id}) was disabled`,
        `channel ${name} (#${id}) was enabled`,
      ]);
      const logged = (await deliveries()).data.filter(
        // The breaker's alerts about it (channel.cooled_down) are another event's, not counted here.
        (entry) =>
          entry['object_id'] === String(id) &&
          ['channel.disabled', 'channel.enabled'].includes(String(entry['event'])),
      );
      expect(logged).toHaveLength(2);
    } finally {
      await removeChannel(id);
      await upstream.close();
    }
  });

  it("alerts a key's low quota to the webhook and mails its owner", async () => {
    const upstream = await startOpenAiDouble();
    const channel = await fixture.channel({
      name: 'steady',
      base_url: upstream.url,
      models: 'gpt-3.5-turbo',
    });
    try {
      await setOptions({ QuotaRemindThreshold: '5000' });
      const user = await fixture.user({ token: { unlimited_quota: false, remain_quota: 3000 } });
      const email = `key-owner-${dialect}@example.com`;
      await db().updateTable('users').set({ email }).where('id', '=', user.userId).execute();
      await user.sdk.chat.completions
        .create({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hello' }], max_tokens: 50 })
        .catch(() => undefined);
      await sluice().idle();
      const [hook, ...more] = hooksAbout('token.quota_low', 'token_id', user.tokenId);
      expect(more).toHaveLength(0);
      expect(hook?.verified).toBe(true);
      expect(hook?.body.data).toMatchObject({ user_id: user.userId, name: 'test key', threshold: 5000 });
      const mail = await smtp.next(email);
      expect(mail.subject).toMatch(/^Your key (is about to run out|has run out) of quota$/);
      expect(mail.body).toContain(`test key (#${user.tokenId})`);
    } finally {
      await setOptions({ QuotaRemindThreshold: '1000' });
      await removeChannel(channel);
      await upstream.close();
    }
  });

  it('sends a test to a configured webhook and lists the webhooks without their secrets', async () => {
    const sent = await fixture.root.post('/api/alert/test', { name: 'ops' });
    expect(sent.body, sent.text).toMatchObject({
      success: true,
      data: { event: 'test', webhook: 'ops', status: 'delivered', attempts: 1 },
    });
    const hook = receiver.received.at(-1);
    expect(hook).toMatchObject({
      verified: true,
      body: { event: 'test', data: { webhook: 'ops', sent_by: 'root' } },
    });

    receiver.status = 503;
    const refused = await fixture.root.post('/api/alert/test', { name: 'ops' });
    expect(refused.body).toMatchObject({ success: true, data: { status: 'failed', response_code: 503 } });
    expect((await fixture.root.post('/api/alert/test', { name: 'nobody' })).body.success).toBe(false);

    const listed = await fixture.root.get('/api/alert/webhooks');
    expect(listed.body).toEqual({
      success: true,
      message: '',
      data: [{ name: 'ops', url: `${receiver.url}/…`, events: [] }],
    });
    expect(listed.text).not.toContain(SECRET);
    const options = await fixture.root.get('/api/option/');
    expect(options.text).not.toContain(SECRET);
    // Saved through /api like the console saves it: the audit trail masks it too.
    const value = JSON.stringify([{ name: 'ops', url: `${receiver.url}/hooks/ops`, secret: SECRET }]);
    expect((await fixture.root.put('/api/option/', { key: 'AlertWebhooks', value })).body.success).toBe(true);
    const audit = await fixture.root.get('/api/audit?object_type=option');
    expect(audit.text).toContain('AlertWebhooks');
    expect(audit.text).not.toContain(SECRET);
  });

  it('refuses a malformed webhook list and bounds the attempts', async () => {
    const refusals: [string, string, RegExp][] = [
      ['AlertWebhooks', 'not json', /not valid JSON/],
      ['AlertWebhooks', '[{"name":"a","url":"ftp://x","secret":"0123456789abcdef"}]', /http/],
      ['AlertWebhooks', '[{"name":"a","url":"http://x","secret":"short"}]', /16 characters/],
      [
        'AlertWebhooks',
        JSON.stringify([
          { name: 'a', url: 'http://x', secret: SECRET },
          { name: 'a', url: 'http://y', secret: SECRET },
        ]),
        /distinct/,
      ],
      ['AlertWebhookAttempts', '0', /between 1 and 10/],
      ['AlertRetryBaseSeconds', '61', /at most 60/],
    ];
    for (const [key, value, message] of refusals) {
      const answer = await fixture.root.put('/api/option/', { key, value });
      expect(answer.body.success, `${key}=${value}`).toBe(false);
      expect(String(answer.body.message)).toMatch(message);
    }
  });
});
