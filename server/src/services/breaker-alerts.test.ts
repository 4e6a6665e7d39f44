import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannelBreaker } from '../relay/routing/channel-breaker.js';
import { startRelayFixture, type RelayFixture } from '../test-support/relay-fixture.js';
import { testDialects } from '../test-support/test-databases.js';
import { startWebhookReceiver, type WebhookReceiver } from '../test-support/webhook-receiver.js';
import { createBreakerAlerts } from './breaker-alerts.js';

const SECRET = 'breaker-alert-secret-0123';

describe.each(testDialects())('channel breaker alerts on %s', (dialect) => {
  let fixture: RelayFixture;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver(SECRET);
    fixture = await startRelayFixture(dialect);
    const options = fixture.test.sluice.services.options;
    await options.update(
      'AlertWebhooks',
      JSON.stringify([{ name: 'ops', url: receiver.url, secret: SECRET }]),
    );
    await options.update('AlertCooldownMinutes', '10');
  });
  afterAll(async () => {
    await fixture?.close();
    await receiver?.close();
  });

  it('raises channel.cooled_down when the breaker opens and channel.recovered when the probe closes it, signed', async () => {
    const channelId = await fixture.channel({
      name: 'breaking',
      base_url: 'http://127.0.0.1:9',
      models: 'm',
    });
    const work: Promise<unknown>[] = [];
    const clock = { at: 1_800_000_000_000 };
    const alerts = createBreakerAlerts({
      db: fixture.test.sluice.database.db,
      raise: fixture.test.sluice.services.alerts.raise,
      track: (promise) => work.push(promise),
    });
    const breaker = createChannelBreaker({
      settings: () => ({ failures: 2, windowMs: 60_000, cooldownMs: 30_000 }),
      now: () => clock.at,
      onTransition: alerts,
    });
    const about = (event: string) =>
      receiver.received.filter(
        (hook) => hook.body.event === event && hook.body.data['channel_id'] === channelId,
      );

    breaker.failed(channelId);
    breaker.failed(channelId);
    // The probe fails: open again, the same cooldown, no second alert.
    clock.at += 30_000;
    breaker.failed(channelId);
    await Promise.all(work);
    const [cooled, ...more] = about('channel.cooled_down');
    expect(more).toHaveLength(0);
    expect(cooled?.verified).toBe(true);
    expect(cooled?.body.data).toMatchObject({ name: 'breaking', failures: 2, until: 1_800_000_030 });
    expect(String(cooled?.body.data['reason'])).toContain('2 failures in a row');
    expect(about('channel.recovered')).toHaveLength(0);

    clock.at += 30_000;
    breaker.succeeded(channelId);
    breaker.succeeded(channelId);
    await Promise.all(work);
    const [recovered, ...again] = about('channel.recovered');
    expect(again).toHaveLength(0);
    expect(recovered?.verified).toBe(true);
    expect(recovered?.headers['x-sluice-event']).toBe('channel.recovered');
    expect(recovered?.body.data).toMatchObject({ channel_id: channelId, name: 'breaking' });
  });
});
