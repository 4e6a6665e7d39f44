import { rmSync } from 'node:fs';
import { setTimeout } from 'node:timers';
import { URL } from 'node:url';
import Sqlite from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';

/**
 * The scale bench's own database, on one of Sluice's three dialects: created empty, filled in the
 * database itself (no row crosses the wire), read for the roll-up watermark, dropped at the end.
 * @typedef {'sqlite' | 'postgres' | 'mysql'} Dialect
 * @typedef {object} ScaleDb
 * @property {Dialect} dialect
 * @property {Record<string, string>} sluiceEnv  how Sluice reaches it (SQL_DSN or SQLITE_PATH)
 * @property {(sql: string) => Promise<void>} run
 * @property {(sql: string) => Promise<Record<string, unknown>[]>} all
 * @property {() => Promise<void>} close
 * @property {() => Promise<void> | void} drop
 */

/**
 * @param {string} name
 * @param {{ pgAdmin: string, mysqlHost: string, mysqlPort: number, mysqlUser: string, sqliteDir: string }} where
 */
export const scaleTargets = (name, where) => ({
  /** @param {boolean} fresh @returns {Promise<ScaleDb>} */
  sqlite: (fresh) => {
    const path = `${where.sqliteDir}/${name}.db`;
    if (fresh) for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
    /** @type {import('better-sqlite3').Database | undefined} */
    let db;
    const open = () => {
      if (!db) {
        db = new Sqlite(path);
        db.pragma('journal_mode = WAL');
        db.pragma('cache_size = -1000000');
      }
      return db;
    };
    /** @type {ScaleDb} */
    const target = {
      dialect: 'sqlite',
      sluiceEnv: { SQLITE_PATH: path },
      run: (sql) => {
        open().exec(sql);
        return Promise.resolve();
      },
      all: (sql) => Promise.resolve(/** @type {Record<string, unknown>[]} */ (open().prepare(sql).all())),
      close: () => {
        db?.close();
        db = undefined;
        return Promise.resolve();
      },
      drop: () => {
        for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
      },
    };
    return Promise.resolve(target);
  },
  /** @param {boolean} fresh @returns {Promise<ScaleDb>} */
  postgres: async (fresh) => {
    if (fresh) {
      const admin = new pg.Client({ connectionString: where.pgAdmin });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
    }
    const url = new URL(where.pgAdmin);
    url.pathname = `/${name}`;
    /** @type {pg.Client | undefined} */
    let client;
    const open = async () => {
      if (!client) {
        client = new pg.Client({ connectionString: url.toString() });
        await client.connect();
      }
      return client;
    };
    return {
      dialect: 'postgres',
      sluiceEnv: { SQL_DSN: url.toString() },
      run: async (sql) => void (await (await open()).query(sql)),
      all: async (sql) => {
        /** @type {import('pg').QueryResult<Record<string, unknown>>} */
        const result = await (await open()).query(sql);
        return result.rows;
      },
      close: async () => {
        await client?.end();
        client = undefined;
      },
      drop: async () => {
        const again = new pg.Client({ connectionString: where.pgAdmin });
        await again.connect();
        await again.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await again.end();
      },
    };
  },
  /** @param {boolean} fresh @returns {Promise<ScaleDb>} */
  mysql: async (fresh) => {
    const server = { host: where.mysqlHost, port: where.mysqlPort, user: where.mysqlUser };
    if (fresh) {
      const admin = await mysql.createConnection(server);
      await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
    }
    /** @type {import('mysql2/promise').Connection | undefined} */
    let connection;
    const open = async () => {
      connection ??= await mysql.createConnection({ ...server, database: name });
      return connection;
    };
    return {
      dialect: 'mysql',
      sluiceEnv: { SQL_DSN: `${where.mysqlUser}@tcp(${where.mysqlHost}:${where.mysqlPort})/${name}` },
      run: async (sql) => void (await (await open()).query(sql)),
      all: async (sql) => /** @type {Record<string, unknown>[]} */ ((await (await open()).query(sql))[0]),
      close: async () => {
        await connection?.end();
        connection = undefined;
      },
      drop: async () => {
        const again = await mysql.createConnection(server);
        await again.query(`DROP DATABASE IF EXISTS ${name}`);
        await again.end();
      },
    };
  },
});

/**
 * Sets the MySQL server's InnoDB buffer pool for a run (MariaDB resizes it online) and answers the
 * size it had, to be set back; `mib` 0 leaves it. A stock server's 128 MiB holds a small part of a
 * 10M-row log and its roll-ups, where an operator of such a log gives it most of the memory.
 * @param {{ mysqlHost: string, mysqlPort: number, mysqlUser: string }} where
 * @param {number} mib
 * @returns {Promise<{ before: number, now: number }>}  sizes in MiB
 */
export const mysqlBufferPool = async (where, mib) => {
  const admin = await mysql.createConnection({
    host: where.mysqlHost,
    port: where.mysqlPort,
    user: where.mysqlUser,
  });
  try {
    const size = async () => {
      const [rows] = await admin.query('SELECT @@innodb_buffer_pool_size AS size');
      return Number(/** @type {{ size: unknown }[]} */ (rows)[0]?.size) / 1048576;
    };
    const before = await size();
    if (mib > 0 && mib !== before) {
      await admin.query(`SET GLOBAL innodb_buffer_pool_size = ${Math.round(mib) * 1048576}`);
      // The resize runs in the background; the variable reads the new size once it is done.
      for (let tries = 0; tries < 600 && (await size()) !== mib; tries += 1)
        await new Promise((done) => setTimeout(done, 100));
    }
    return { before, now: await size() };
  } finally {
    await admin.end();
  }
};
