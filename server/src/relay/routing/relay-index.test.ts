import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryCache } from '../../cache/memory-cache.js';
import { createChangeFeed } from '../../services/change-feed.js';
import { startRelayFixture, type RelayFixture } from '../../test-support/relay-fixture.js';
import { testDialects } from '../../test-support/test-databases.js';
import { createRelayIndex, UNKNOWN_KEY_MS } from './relay-index.js';

describe.each(testDialects())('the relay index checked against the database on %s', (dialect) => {
  let fixture: RelayFixture;
  beforeAll(async () => {
    fixture = await startRelayFixture(dialect);
  });
  afterAll(async () => {
    await fixture?.close();
  });

  const indexOf = () =>
    createRelayIndex(
      fixture.test.sluice.database.db,
      createChangeFeed(createMemoryCache(), pino({ level: 'silent' })),
    );

  it('keeps what did not change and drops a key, a user and the routes whose rows changed', async () => {
    const db = fixture.test.sluice.database.db;
    const index = indexOf();
    const channelId = await fixture.channel({ name: 'checked', models: 'gpt-4o', group: 'checked' });
    const kept = await fixture.user();
    const changed = await fixture.user();
    for (const user of [kept, changed]) {
      await index.token(user.key);
      await index.user(user.userId);
    }
    expect(await index.candidates('checked', 'gpt-4o')).toHaveLength(1);

    await index.revalidate();
    expect(index.peekToken(kept.key)).toBeDefined();
    expect(index.peekToken(changed.key)).toBeDefined();
    expect(index.peekCandidates('checked', 'gpt-4o')).toHaveLength(1);

    await db.updateTable('tokens').set({ models: 'gpt-4o' }).where('id', '=', changed.tokenId).execute();
    await db.updateTable('users').set({ group: 'vip' }).where('id', '=', changed.userId).execute();
    await db.updateTable('channels').set({ priority: 5 }).where('id', '=', channelId).execute();
    await index.revalidate();
    expect(index.peekToken(kept.key)).toBeDefined();
    expect(index.peekUser(kept.userId)).toBeDefined();
    expect(index.peekToken(changed.key)).toBeUndefined();
    expect(index.peekUser(changed.userId)).toBeUndefined();
    expect(index.peekCandidates('checked', 'gpt-4o')).toBeUndefined();
    expect((await index.candidates('checked', 'gpt-4o'))[0]?.priority).toBe(5);

    await db.deleteFrom('tokens').where('id', '=', kept.tokenId).execute();
    await index.revalidate();
    expect(index.peekToken(kept.key)).toBeUndefined();
  });

  it('refuses a key the database lacks from memory for a few seconds, one query for many requests', async () => {
    const db = fixture.test.sluice.database.db;
    const changes = createChangeFeed(createMemoryCache(), pino({ level: 'silent' }));
    const index = createRelayIndex(db, changes);
    const user = await fixture.user();
    const key = `made${user.key.slice(4)}`;
    let queries = 0;
    // Every query executed (compiled or raw) passes its result through the plugin.
    const counted = db.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: (args) => {
        queries += 1;
        return Promise.resolve(args.result);
      },
    });
    const countingIndex = createRelayIndex(counted, changes);
    expect(await Promise.all(Array.from({ length: 20 }, () => countingIndex.token(key)))).toEqual(
      Array.from({ length: 20 }, () => undefined),
    );
    expect(await countingIndex.token(key)).toBeUndefined();
    expect(queries).toBe(1);
    // The relay refuses a remembered miss without a promise; a key never asked about is not one.
    expect(countingIndex.knownUnknown(key)).toBe(true);
    expect(countingIndex.knownUnknown(`else${user.key.slice(4)}`)).toBe(false);
    // Written behind Sluice's back: seen once the bound has passed.
    await db.updateTable('tokens').set({ key }).where('id', '=', user.tokenId).execute();
    expect(await countingIndex.token(key)).toBeUndefined();
    const realNow = performance.now.bind(performance);
    const later = realNow() + UNKNOWN_KEY_MS + 1;
    performance.now = () => later;
    try {
      expect(countingIndex.knownUnknown(key)).toBe(false);
      expect((await countingIndex.token(key))?.id).toBe(user.tokenId);
    } finally {
      performance.now = realNow;
    }
    // A key change through Sluice clears a remembered miss at once, on every instance.
    const other = `gone${user.key.slice(4)}`;
    expect(await index.token(other)).toBeUndefined();
    await db.updateTable('tokens').set({ key: other }).where('id', '=', user.tokenId).execute();
    expect(index.knownUnknown(other)).toBe(true);
    await changes.emit({ kind: 'token', id: other });
    expect(index.knownUnknown(other)).toBe(false);
    expect((await index.token(other))?.id).toBe(user.tokenId);
  });

  it('drops a key and a user whose rate limits were changed behind Sluice’s back', async () => {
    const db = fixture.test.sluice.database.db;
    const index = indexOf();
    const kept = await fixture.user();
    const limitedKey = await fixture.user();
    const limitedUser = await fixture.user();
    for (const user of [kept, limitedKey, limitedUser]) {
      await index.token(user.key);
      await index.user(user.userId);
    }
    await index.revalidate();
    expect(index.peekToken(limitedKey.key)).toBeDefined();
    await db.updateTable('tokens').set({ rpm_limit: 60 }).where('id', '=', limitedKey.tokenId).execute();
    await db
      .updateTable('users')
      .set({ concurrency_limit: 2 })
      .where('id', '=', limitedUser.userId)
      .execute();
    await index.revalidate();
    expect(index.peekToken(kept.key)).toBeDefined();
    expect(index.peekUser(kept.userId)).toBeDefined();
    expect(index.peekToken(limitedKey.key)).toBeUndefined();
    expect(index.peekUser(limitedUser.userId)).toBeUndefined();
    expect(Number((await index.token(limitedKey.key))?.rpm_limit)).toBe(60);
  });

  it('drops only the key disabled among several', async () => {
    const index = indexOf();
    const users = await Promise.all(Array.from({ length: 3 }, () => fixture.user()));
    for (const user of users) await index.token(user.key);
    const db = fixture.test.sluice.database.db;
    await db.updateTable('tokens').set({ status: 2 }).where('id', '=', users[2]!.tokenId).execute();
    await index.revalidate();
    expect(users.map((user) => index.peekToken(user.key) !== undefined)).toEqual([true, true, false]);
  });
});
