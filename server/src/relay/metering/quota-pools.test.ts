import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/database.js';
import { migrate } from '../../db/migrations/migrations.js';
import { generateTokenKey } from '../../lib/keys.js';
import { createTestDatabase } from '../../test-support/test-databases.js';
import { createQuotaPools } from './quota-pools.js';

const START = 1_000_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!process.env['TEST_MYSQL_DSN'])('quota pools on MySQL', () => {
  it('grows a pool whose transaction the database chose as a deadlock’s victim, once, on the next try', async () => {
    const test = await createTestDatabase('mysql');
    const statements: string[] = [];
    const database = await openDatabase({
      dsn: test.location,
      sqlitePath: '',
      sqliteBusyTimeoutMs: 3000,
      maxConnections: 4,
      logQuery: (text) => statements.push(text),
    });
    const { db } = database;
    try {
      await migrate(db, 'mysql', 'main');
      const user = async (username: string) =>
        Number(
          (
            await db
              .insertInto('users')
              .values({
                username,
                password: 'x',
                role: 1,
                status: 1,
                quota: START,
                used_quota: 0,
                request_count: 0,
                group: 'default',
              })
              .executeTakeFirst()
          ).insertId,
        );
      const userId = await user('payer');
      const tokenId = Number(
        (
          await db
            .insertInto('tokens')
            .values({
              user_id: userId,
              key: generateTokenKey(),
              status: 1,
              name: 'key',
              remain_quota: 0,
              used_quota: 0,
              unlimited_quota: true,
              created_time: 0,
              accessed_time: 0,
              expired_time: -1,
            })
            .executeTakeFirst()
        ).insertId,
      );
      // Others' rows, for the rival transaction to change: InnoDB rolls back the smaller of the two.
      for (let index = 0; index < 200; index += 1) await user(`other-${index}`);
      const moves: number[] = [];
      const pools = createQuotaPools({
        db,
        instanceId: randomUUID(),
        moved: (_user, amount) => moves.push(amount),
      });

      let grown: Promise<string> | undefined;
      let victimOfItsOwn: unknown;
      await db.transaction().execute(async (rival) => {
        // The rival holds the payer's row (as another instance's settlement would) and changes many others.
        await rival.updateTable('users').set({ quota: START }).where('id', '=', userId).execute();
        await sql`UPDATE users SET request_count = request_count + 1 WHERE username LIKE 'other-%'`.execute(
          rival,
        );
        // The pool's transaction inserts its row, then waits for the payer's.
        // A quota of 50 estimates makes the slice the estimate itself, so nothing but the retry of
        // the same transaction can save the request (a larger slice that fails is retried smaller).
        const admitted = pools.admit({ userId, tokenId, unlimited: true }, 1000, 50_000, 0);
        grown = admitted instanceof Promise ? admitted : Promise.resolve(admitted);
        await sleep(300);
        // Now the rival waits for the pool's row: a deadlock, the pool's transaction its victim.
        try {
          await sql`SELECT id FROM sluice_reservations FOR UPDATE`.execute(rival);
        } catch (error) {
          victimOfItsOwn = error;
        }
      });
      expect(victimOfItsOwn).toBeUndefined();
      await expect(grown).resolves.toEqual(expect.any(String));
      const inserts = statements.filter((text) => /^insert into `sluice_reservations`/i.test(text));
      expect(inserts).toHaveLength(2);
      const status = await sql<{ Status: string }>`SHOW ENGINE INNODB STATUS`.execute(db);
      expect(status.rows[0]?.Status ?? '').toMatch(/LATEST DETECTED DEADLOCK/);
      // Taken once: the user's quota moved by the one slice the pool's row holds.
      const [reservation] = await db.selectFrom('sluice_reservations').select('quota').execute();
      const { quota } = await db
        .selectFrom('users')
        .select('quota')
        .where('id', '=', userId)
        .executeTakeFirstOrThrow();
      expect(moves).toHaveLength(1);
      expect(Number(reservation?.quota)).toBe(-(moves[0] ?? 0));
      expect(Number(quota)).toBe(START + (moves[0] ?? 0));
    } finally {
      await database.close();
      await test.drop();
    }
  });
});
