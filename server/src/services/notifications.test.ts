import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Sluice } from '../boot.js';
import {
  startMessagePusherDouble,
  type MessagePusherDouble,
} from '../test-support/check-and-push-doubles.js';
import { fetchThrough } from '../test-support/listen.js';
import { startOpenAiDouble, type OpenAiDouble } from '../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../test-support/relay-fixture.js';
import { startSmtpSink, type SmtpSink } from '../test-support/smtp-sink.js';
import { testDialects, testRedisUrl } from '../test-support/test-databases.js';

describe.each(testDialects())('notifications to root and quota reminders on %s', (dialect) => {
  let fixture: RelayFixture;
  let upstream: OpenAiDouble;
  let pusher: MessagePusherDouble;
  let smtp: SmtpSink;
  let serial = 0;
  const sluice = () => fixture.test.sluice;
  const db = () => sluice().database.db;
  const setOptions = async (values: Record<string, string>) => {
    for (const [key, value] of Object.entries(values)) await sluice().services.options.update(key, value);
  };
  const channelStatus = async (id: number) =>
    (await db().selectFrom('channels').select('status').where('id', '=', id).executeTakeFirstOrThrow())
      .status;

  /** A chat request through the real HTTP relay, its failure swallowed; then the background work. */
  const chat = async (sdk: RelayUser['sdk']) => {
    await sdk.chat.completions
      .create({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hello' }] })
      .catch(() => undefined);
    await sluice().idle();
  };

  /** The same request through another instance (its own listener, in process). */
  const chatOn = async (other: Sluice, key: string) => {
    await fetchThrough(other, '/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hello' }] }),
    });
    await other.idle();
  };

  beforeAll(async () => {
    [upstream, pusher, smtp] = await Promise.all([
      startOpenAiDouble(),
      startMessagePusherDouble(),
      startSmtpSink(),
    ]);
    fixture = await startRelayFixture(dialect);
    await fixture.channel({ name: 'steady', base_url: upstream.url, models: 'gpt-3.5-turbo' });
  });
  afterAll(async () => {
    await fixture?.close();
    for (const double of [upstream, pusher, smtp]) await double?.close();
  });
  beforeEach(async () => {
    pusher.refuse = false;
    await setOptions({
      SystemName: 'Sluice Test',
      ServerAddress: 'https://gateway.example.com',
      SMTPServer: smtp.host,
      SMTPPort: String(smtp.port),
      SMTPFrom: 'noreply@sluice.test',
      MessagePusherAddress: '',
      MessagePusherToken: '',
      AutomaticDisableChannelEnabled: 'true',
      AutomaticEnableChannelEnabled: 'true',
      QuotaRemindThreshold: '5000000',
    });
  });

  describe('root, when a channel is disabled or re-enabled automatically', () => {
    /** A channel that alone serves a model, so that a request reaches it. */
    const lonelyChannel = async (failing: OpenAiDouble) => {
      serial += 1;
      const model = `only-${serial}`;
      const id = await fixture.channel({ name: `lonely-${serial}`, base_url: failing.url, models: model });
      return { id, model };
    };

    it('goes to the message pusher when one is configured and accepts', async () => {
      await setOptions({ MessagePusherAddress: `${pusher.url}/push/root`, MessagePusherToken: pusher.token });
      const failing = await startOpenAiDouble();
      try {
        const { id, model } = await lonelyChannel(failing);
        failing.failNext(1, 401, 'Incorrect API key provided');
        const { sdk } = await fixture.user();
        await sdk.chat.completions
          .create({ model, messages: [{ role: 'user', content: 'hi' }] })
          .catch(() => undefined);
        await sluice().idle();
        expect(await channelStatus(id)).toBe(3);
        const message = pusher.messages.at(-1);
        expect(message).toMatchObject({
          title: `channel lonely-${serial} (#${id}) was disabled`,
          token: pusher.token,
        });
        expect(message?.description).toContain('Incorrect API key provided');
        expect(message?.content).toContain(`(#${id}) was disabled automatically`);
      } finally {
        await failing.close();
      }
    });

    it('falls back to an email to root when the pusher refuses, and tells of the re-enable too', async () => {
      const rootEmail = `root-${dialect}@example.com`;
      await db().updateTable('users').set({ email: rootEmail }).where('role', '>=', 100).execute();
      await setOptions({ MessagePusherAddress: pusher.url, MessagePusherToken: pusher.token });
      pusher.refuse = true;
      const failing = await startOpenAiDouble();
      try {
        const { id, model } = await lonelyChannel(failing);
        failing.failNext(1, 401, 'Incorrect API key provided');
        const { sdk } = await fixture.user();
        await sdk.chat.completions
          .create({ model, messages: [{ role: 'user', content: 'hi' }] })
          .catch(() => undefined);
        await sluice().idle();
        const disabled = await smtp.next(rootEmail);
        expect(disabled.subject).toBe(`channel lonely-${serial} (#${id}) was disabled`);
        expect(disabled.body).toContain('Incorrect API key provided');

        // No pusher at all: straight to email. The upstream recovered; test-all brings the channel back.
        await setOptions({ MessagePusherAddress: '' });
        expect((await fixture.root.get('/api/channel/test?scope=disabled')).body.success).toBe(true);
        await sluice().idle();
        expect(await channelStatus(id)).toBe(1);
        const enabled = await smtp.next(rootEmail);
        expect(enabled.subject).toBe(`channel lonely-${serial} (#${id}) was enabled`);
      } finally {
        await failing.close();
      }
    });
  });

  describe('root, when a test finds a channel too slow and automatic disabling is off', () => {
    it('hears that the test timed out, and the channel stays enabled', async () => {
      await setOptions({
        MessagePusherAddress: `${pusher.url}/push/root`,
        MessagePusherToken: pusher.token,
        AutomaticDisableChannelEnabled: 'false',
        ChannelDisableThreshold: '0.1',
      });
      const slow = await startOpenAiDouble();
      try {
        serial += 1;
        const name = `slow-${serial}`;
        const id = await fixture.channel({ name, base_url: slow.url, models: `slow-model-${serial}` });
        slow.hold = new Promise((resolve) => setTimeout(resolve, 300));
        expect((await fixture.root.get('/api/channel/test?scope=all')).body.success).toBe(true);
        await sluice().idle();
        expect(await channelStatus(id)).toBe(1);
        // Testing all channels runs in the background: wait (bounded) for the notice to arrive.
        const title = `channel ${name} (#${id}) test timed out`;
        const deadline = Date.now() + 15_000;
        while (!pusher.messages.some((message) => message.title === title) && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 50));
        const told = pusher.messages.find((message) => message.title === title);
        expect(told?.description).toMatch(
          /^channel slow-\d+ \(#\d+\): the test took \d+\.\d\d s, over 0\.1 s$/,
        );
      } finally {
        await setOptions({ ChannelDisableThreshold: '5' });
        await slow.close();
      }
    });
  });

  describe('users, when their quota falls below QuotaRemindThreshold', () => {
    const payingUser = async (email: string | null) => {
      const user = await fixture.user({ quota: 10_000_000 });
      if (email !== null)
        await db().updateTable('users').set({ email }).where('id', '=', user.userId).execute();
      return user;
    };
    /** Writes the quota and announces it, as every write through the API does. */
    const setQuota = async (userId: number, quota: number) => {
      await db().updateTable('users').set({ quota }).where('id', '=', userId).execute();
      await sluice().services.changes.emit({ kind: 'user', id: userId });
    };
    const mailsTo = (email: string) => smtp.mails.filter((mail) => mail.envelopeTo.includes(email));

    it('mails once per crossing: not again below, not after a restart, again after a top-up', async () => {
      const email = `low-${dialect}-${(serial += 1)}@example.com`;
      const user = await payingUser(email);
      await chat(user.sdk);
      expect(mailsTo(email)).toHaveLength(0);

      await setQuota(user.userId, 4_000_000);
      await chat(user.sdk);
      const reminder = await smtp.next(email);
      expect(reminder.subject).toBe('Your quota is about to run out');
      expect(reminder.body).toContain('href="https://gateway.example.com/topup"');
      expect(reminder.body).toMatch(/remaining quota is \$\d+\.\d{6} quota/);

      await chat(user.sdk);
      await chat(user.sdk);
      expect(mailsTo(email)).toHaveLength(1);

      // A restarted (or another) instance knows the user was reminded.
      const other = await fixture.test.boot();
      await chatOn(other, user.key);
      expect(mailsTo(email)).toHaveLength(1);

      // Topped up above the threshold, then down again: a new crossing, a new mail.
      await setQuota(user.userId, 9_000_000);
      await chat(user.sdk);
      await setQuota(user.userId, 3_000_000);
      await chat(user.sdk);
      await smtp.next(email);
      expect(mailsTo(email)).toHaveLength(2);
    });

    it('says the quota has run out when it cannot cover the request', async () => {
      const email = `empty-${dialect}-${(serial += 1)}@example.com`;
      const user = await payingUser(email);
      await setQuota(user.userId, 10);
      await chat(user.sdk);
      expect((await smtp.next(email)).subject).toBe('Your quota has run out');
    });

    it('mails nobody when the user has no email', async () => {
      const user = await payingUser(null);
      const before = smtp.mails.length;
      await setQuota(user.userId, 100_000);
      await chat(user.sdk);
      expect(smtp.mails.length).toBe(before);
      const marker = await db()
        .selectFrom('sluice_codes')
        .select('key')
        .where('purpose', '=', 'quota_remind')
        .where('key', '=', String(user.userId))
        .executeTakeFirst();
      expect(marker).toBeDefined();
    });
  });
});

const redisUrl = testRedisUrl();

describe.skipIf(!redisUrl).each(testDialects())(
  'quota reminders across instances sharing Redis on %s',
  (dialect) => {
    let fixture: RelayFixture;
    let upstream: OpenAiDouble;
    let smtp: SmtpSink;
    let second: Sluice;

    const chatOn = async (sluice: Sluice, key: string) => {
      await fetchThrough(sluice, '/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hello' }] }),
      });
      await sluice.idle();
    };

    beforeAll(async () => {
      [upstream, smtp] = await Promise.all([startOpenAiDouble(), startSmtpSink()]);
      fixture = await startRelayFixture(dialect, { REDIS_CONN_STRING: redisUrl ?? '' });
      second = await fixture.test.boot();
      await second.services.changes.ready;
      await fixture.channel({ name: 'shared', base_url: upstream.url, models: 'gpt-3.5-turbo' });
      for (const [key, value] of Object.entries({
        SMTPServer: smtp.host,
        SMTPPort: String(smtp.port),
        SMTPFrom: 'noreply@sluice.test',
        QuotaRemindThreshold: '5000000',
      }))
        await fixture.test.sluice.services.options.update(key, value);
      await second.services.options.reload();
    });
    afterAll(async () => {
      await fixture?.close();
      await upstream?.close();
      await smtp?.close();
    });

    it('re-arms on one instance what another reminded, so the next crossing mails again', async () => {
      const first = fixture.test.sluice;
      const db = first.database.db;
      const email = `shared-${dialect}@example.com`;
      const user = await fixture.user({ quota: 3_000_000 });
      await db.updateTable('users').set({ email }).where('id', '=', user.userId).execute();
      const mails = () => smtp.mails.filter((mail) => mail.envelopeTo.includes(email)).length;

      await chatOn(first, user.key);
      await smtp.next(email);
      await chatOn(second, user.key);
      expect(mails()).toBe(1);

      // Quota written straight to the database, then announced as every write through the API is.
      await db.updateTable('users').set({ quota: 9_000_000 }).where('id', '=', user.userId).execute();
      await second.services.changes.emit({ kind: 'user', id: user.userId });
      await chatOn(second, user.key);
      await db.updateTable('users').set({ quota: 2_000_000 }).where('id', '=', user.userId).execute();
      await first.services.changes.emit({ kind: 'user', id: user.userId });
      // The first instance heard of the re-arm through Redis: it claims the marker again and mails.
      await expect
        .poll(
          async () => {
            await chatOn(first, user.key);
            return mails();
          },
          { timeout: 5000 },
        )
        .toBe(2);
    });
  },
);
