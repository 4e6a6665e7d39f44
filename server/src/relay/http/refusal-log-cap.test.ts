import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSluice, type Sluice } from '../../boot.js';
import { readConfig } from '../../config/env.js';
import { listenSluice, type Listening } from '../../test-support/listen.js';
import { createTestDatabase, type TestDatabase } from '../../test-support/test-databases.js';
import { createRefusalLogCap } from './refusal-log-cap.js';

/** A logger that keeps its lines. */
const recordingLogger = (level = 'info') => {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level },
    { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { logger, lines };
};

describe('the cap on refusals’ access lines', () => {
  it('admits the first lines of a window, counts the rest by status and tells them once', () => {
    const { logger, lines } = recordingLogger();
    let time = 0;
    const cap = createRefusalLogCap(logger, { lines: 3, windowMs: 1000, now: () => time });
    expect([401, 401, 429, 401, 401, 429].map((status) => cap.admit(status))).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
    cap.flush();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, skipped: { 401: 2, 429: 1 }, windowMs: 1000 });
    cap.flush();
    expect(lines).toHaveLength(1);
    // A new window writes its own first lines again.
    time = 1000;
    expect(cap.admit(401)).toBe(true);
  });

  it('tells the skipped count when the window ends, without being asked', async () => {
    const { logger, lines } = recordingLogger();
    const cap = createRefusalLogCap(logger, { lines: 1, windowMs: 50 });
    cap.admit(401);
    cap.admit(401);
    cap.admit(403);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(lines).toEqual([expect.objectContaining({ skipped: { 401: 1, 403: 1 } })]);
  });

  it('caps nothing at debug level', () => {
    const { logger } = recordingLogger('debug');
    const cap = createRefusalLogCap(logger, { lines: 1 });
    expect([401, 401, 401].map((status) => cap.admit(status))).toEqual([true, true, true]);
  });
});

describe('a flood of made-up keys through the relay', () => {
  let database: TestDatabase;
  let sluice: Sluice;
  let server: Listening;
  const recorded = recordingLogger();

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    sluice = await bootSluice(
      readConfig(
        { SESSION_SECRET: 'test-session-secret', SYNC_FREQUENCY: '0', ...database.env },
        () => 'unused',
      ),
      recorded.logger,
    );
    server = await listenSluice(sluice);
  });

  afterAll(async () => {
    await server.close();
    await sluice.close();
    await database.drop();
  });

  it('answers every one 401, writes 20 access lines and tells the other 40 at shutdown', async () => {
    const answers = await Promise.all(
      Array.from({ length: 60 }, async (_, index) => {
        const response = await fetch(`${server.url}/v1/chat/completions`, {
          method: 'POST',
          headers: {
            authorization: `Bearer sk-madeUp${String(index % 3)}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] }),
        });
        const body = (await response.json()) as { error: { code: string } };
        return `${String(response.status)} ${body.error.code}`;
      }),
    );
    expect(new Set(answers)).toEqual(new Set(['401 invalid_token']));
    const accessLines = recorded.lines.filter((line) => line['msg'] === 'request' && line['status'] === 401);
    expect(accessLines).toHaveLength(20);
    // The rest are told when Sluice stops, as the window has not ended yet.
    await server.close();
    await sluice.close();
    expect(recorded.lines.filter((line) => line['skipped'] !== undefined)).toEqual([
      expect.objectContaining({ level: 40, skipped: { 401: 40 } }),
    ]);
  });
});
