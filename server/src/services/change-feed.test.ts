import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { Cache } from '../cache/cache.js';
import { createMemoryCache } from '../cache/memory-cache.js';
import { createChangeFeed, type Change } from './change-feed.js';

/** A logger that keeps its lines. */
const recordingLogger = () => {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { logger, lines };
};

describe('change feed', () => {
  it('tells this instance and answers the write as done when the broadcast fails, logging it', async () => {
    const broken: Cache = {
      ...createMemoryCache(),
      publish: () => Promise.reject(new Error('Connection is closed.')),
    };
    const { logger, lines } = recordingLogger();
    const feed = createChangeFeed(broken, logger);
    const seen: Change[] = [];
    feed.on((change) => seen.push(change));
    await expect(feed.emit({ kind: 'user', id: 7 })).resolves.toBeUndefined();
    expect(seen).toEqual([{ kind: 'user', id: 7 }]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, change: { kind: 'user', id: 7 } });
    expect(String(lines[0]?.['msg'])).toContain('change broadcast failed');
  });

  it('drops every kept user, key and channel on resync, and when the cache says messages were missed', () => {
    let missed = () => {};
    const cache: Cache = {
      ...createMemoryCache(),
      onResync: (handler) => {
        missed = handler;
      },
    };
    const feed = createChangeFeed(cache, recordingLogger().logger);
    const seen: Change[] = [];
    feed.on((change) => seen.push(change));
    feed.resync();
    const everything = [{ kind: 'user' }, { kind: 'token' }, { kind: 'channel' }];
    expect(seen).toEqual(everything);
    missed();
    expect(seen).toEqual([...everything, ...everything]);
  });
});
