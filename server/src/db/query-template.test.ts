import {
  DummyDriver,
  Kysely,
  MysqlAdapter,
  MysqlIntrospector,
  MysqlQueryCompiler,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
} from 'kysely';
import { describe, expect, it } from 'vitest';
import { templated } from './query-template.js';
import type { Tables } from './tables.js';

const compilers = {
  sqlite: () =>
    new Kysely<Tables>({
      dialect: {
        createAdapter: () => new SqliteAdapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (db) => new SqliteIntrospector(db),
        createQueryCompiler: () => new SqliteQueryCompiler(),
      },
    }),
  postgres: () =>
    new Kysely<Tables>({
      dialect: {
        createAdapter: () => new PostgresAdapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (db) => new PostgresIntrospector(db),
        createQueryCompiler: () => new PostgresQueryCompiler(),
      },
    }),
  mysql: () =>
    new Kysely<Tables>({
      dialect: {
        createAdapter: () => new MysqlAdapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (db) => new MysqlIntrospector(db),
        createQueryCompiler: () => new MysqlQueryCompiler(),
      },
    }),
};

describe.each(Object.keys(compilers) as (keyof typeof compilers)[])('templated queries (%s)', (name) => {
  const db = compilers[name]();
  const update = (id: number | string, quota: number | string, name: number | string) =>
    db
      .updateTable('users')
      .set((eb) => ({ quota: eb('quota', '-', Number(quota)), username: String(name) }))
      .where('id', 'in', [Number(id), 7])
      .where('status', '=', 1);

  it('answers the statement Kysely compiles for the same values, whatever the values', () => {
    for (const [id, quota, user] of [
      [1, 10, 'ann'],
      [99, -3, 'bob'],
      [5, 0, ''],
      [5, 5, '5'],
    ] as const) {
      const fast = templated(db, 'update one user', update, [id, quota, user]);
      const slow = update(id, quota, user).compile();
      expect(fast.sql).toBe(slow.sql);
      expect(fast.parameters).toEqual(slow.parameters);
    }
  });

  it('keeps one template per database: another database compiles its own', () => {
    const other = compilers[name]();
    const fast = templated(other, 'update one user', update, [3, 4, 'cy']);
    expect(fast.parameters).toEqual(update(3, 4, 'cy').compile().parameters);
  });

  it('compiles every time a shape whose value is inlined as a literal', () => {
    const inlined = (id: number) => db.selectFrom('users').select(sql<number>`${sql.lit(id)}`.as('n'));
    for (const id of [1, 2, 3]) {
      const compiled = templated(db, 'literal', inlined, [id]);
      expect(compiled.sql).toBe(inlined(id).compile().sql);
      expect(compiled.sql).toContain(String(id));
    }
  });
});
