import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';
import { serializeError } from './log-options.js';

const SECRET = 'sk-log-secret-4d1e9a';

describe('logged errors never carry a statement’s values', () => {
  it('drops sql, detail, parameters and values, in causes too, and keeps the rest', () => {
    const error = Object.assign(new Error('duplicate key value violates unique constraint'), {
      code: '23505',
      detail: `Key (key)=(${SECRET}) already exists.`,
      sql: `INSERT INTO tokens (key) VALUES ('${SECRET}')`,
      parameters: [SECRET],
      cause: Object.assign(new Error('driver'), { values: [SECRET], sqlMessage: SECRET }),
    });
    const logged = serializeError(error);
    expect(JSON.stringify(logged)).not.toContain(SECRET);
    expect(logged).toMatchObject({
      type: 'Error',
      message: expect.stringContaining('duplicate key value violates unique constraint') as unknown,
      code: '23505',
    });
    expect(logged.stack).toContain('log-options.test');
  });

  describe.each(testDialects())('a failing statement on %s', (dialect) => {
    let test: TestSluice;
    beforeAll(async () => {
      test = await startTestSluice(dialect);
    });
    afterAll(() => test?.close());

    it('is logged without the values it was given', async () => {
      const db = test.sluice.database.db;
      const failure = await sql`INSERT INTO no_such_table (secret) VALUES (${SECRET})`
        .execute(db)
        .then(() => undefined)
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(Error);
      // mysql2 fills the values into the SQL it keeps on the error: pino's own serializer logs them.
      if (dialect === 'mysql')
        expect(JSON.stringify(pino.stdSerializers.err(failure as Error))).toContain(SECRET);
      const logged = JSON.stringify(serializeError(failure as Error));
      expect(logged).not.toContain(SECRET);
      expect(logged).toContain('no_such_table');
    });
  });
});
