import { describe, expect, it, vi } from 'vitest';
import { dialectOf, parseMysqlDsn } from '../db/dsn.js';
import { CONFIG_VARIABLES, ConfigError, readConfig } from './env.js';

const fixedSecret = () => 'generated-secret';

/** readConfig with a fixed secret generator, so the defaults are deterministic. */
const read = (env: Record<string, string | undefined>) => readConfig(env, fixedSecret, () => false);

/** The ConfigError readConfig throws for `env`, or a failure when it does not throw one. */
const configErrorOf = (env: Record<string, string>): ConfigError => {
  try {
    read(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw new Error(`expected a ConfigError, got ${String(error)}`, { cause: error });
  }
  throw new Error(`expected ${JSON.stringify(env)} to be refused`);
};

describe('readConfig', () => {
  it('answers one-api compatible defaults for an empty environment', () => {
    const config = read({});
    expect(config).toEqual({
      port: 3000,
      sqlDsn: '',
      sqlitePath: './data/sluice.db',
      sqliteBusyTimeoutMs: 3000,
      logSqlDsn: '',
      sqlMaxOpenConns: 50,
      redisConnString: '',
      redisMasterName: '',
      redisPassword: '',
      sessionSecret: 'generated-secret',
      sessionSecretGenerated: true,
      warnings: [],
      nodeType: 'master',
      syncFrequencySeconds: 600,
      statusCheckSeconds: 5,
      globalApiRateLimit: 480,
      globalWebRateLimit: 240,
      criticalRateLimit: 20,
      debug: false,
      debugSql: false,
      initialRootToken: '',
      initialRootAccessToken: '',
      frontendBaseUrl: '',
      webDistPath: '',
      relayTimeoutSeconds: 0,
      relayStepTimeouts: { connectSeconds: 0, firstByteSeconds: 0, idleSeconds: 0 },
      billingJournalDir: 'data/journal',
      relayProxy: '',
      geminiVersion: '',
      geminiSafetySetting: 'BLOCK_NONE',
      channelTestFrequencyMinutes: 0,
      pollingIntervalSeconds: 0,
      enableMetric: false,
      metricQueueSize: 10,
      metricSuccessRateThreshold: 0.8,
      maxRequestBodyBytes: 32 * 1024 * 1024,
      trustProxy: false,
      githubOAuthUrl: 'https://github.com',
      githubApiUrl: 'https://api.github.com',
      larkOpenUrl: 'https://open.feishu.cn',
      larkPassportUrl: 'https://passport.feishu.cn',
      turnstileVerifyUrl: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('treats an empty variable like an unset one', () => {
    const config = read({
      PORT: '',
      SYNC_FREQUENCY: '',
      GLOBAL_API_RATE_LIMIT: '',
      NODE_TYPE: '',
      DEBUG: '',
    });
    expect(config.port).toBe(3000);
    expect(config.syncFrequencySeconds).toBe(600);
    expect(config.globalApiRateLimit).toBe(480);
    expect(config.nodeType).toBe('master');
    expect(config.debug).toBe(false);
  });

  it('reads every variable it is given, trimming whitespace', () => {
    const config = read({
      PORT: ' 8080 ',
      SQLITE_PATH: '/var/lib/sluice/one-api.db',
      SQLITE_BUSY_TIMEOUT: '100',
      SQL_MAX_OPEN_CONNS: '7',
      REDIS_CONN_STRING: 'rediss://:pw@cache.example.com:6380/2',
      SESSION_SECRET: 'a-fixed-secret',
      NODE_TYPE: 'SLAVE',
      SYNC_FREQUENCY: '60',
      GLOBAL_API_RATE_LIMIT: '0',
      GLOBAL_WEB_RATE_LIMIT: '12',
      CRITICAL_RATE_LIMIT: '3',
      DEBUG: 'TRUE',
      DEBUG_SQL: 'yes',
      INITIAL_ROOT_TOKEN: 'sk-abcdefgh12345678',
      INITIAL_ROOT_ACCESS_TOKEN: 'root_access-token_1',
      FRONTEND_BASE_URL: 'https://console.example.com//',
      WEB_DIST_PATH: '/srv/web',
      RELAY_TIMEOUT: '120',
      RELAY_CONNECT_TIMEOUT: '2',
      RELAY_FIRST_BYTE_TIMEOUT: '0',
      RELAY_IDLE_TIMEOUT: '30.5',
      MAX_REQUEST_BODY_MB: '4',
      TRUST_PROXY: '1',
      CHANNEL_TEST_FREQUENCY: '30',
      POLLING_INTERVAL: '2',
      ENABLE_METRIC: 'true',
      RELAY_PROXY: ' http://proxy.internal:3128 ',
      GEMINI_VERSION: 'v1',
      GEMINI_SAFETY_SETTING: 'block_medium_and_above',
      METRIC_QUEUE_SIZE: '20',
      METRIC_SUCCESS_RATE_THRESHOLD: '0.65',
    });
    expect(config).toMatchObject({
      port: 8080,
      sqlitePath: '/var/lib/sluice/one-api.db',
      sqliteBusyTimeoutMs: 100,
      sqlMaxOpenConns: 7,
      redisConnString: 'rediss://:pw@cache.example.com:6380/2',
      sessionSecret: 'a-fixed-secret',
      sessionSecretGenerated: false,
      nodeType: 'slave',
      syncFrequencySeconds: 60,
      globalApiRateLimit: 0,
      globalWebRateLimit: 12,
      criticalRateLimit: 3,
      debug: true,
      debugSql: true,
      initialRootToken: 'abcdefgh12345678',
      initialRootAccessToken: 'root_access-token_1',
      frontendBaseUrl: 'https://console.example.com',
      webDistPath: '/srv/web',
      relayTimeoutSeconds: 120,
      relayStepTimeouts: { connectSeconds: 2, firstByteSeconds: 0, idleSeconds: 30.5 },
      maxRequestBodyBytes: 4 * 1024 * 1024,
      trustProxy: true,
      channelTestFrequencyMinutes: 30,
      pollingIntervalSeconds: 2,
      enableMetric: true,
      relayProxy: 'http://proxy.internal:3128',
      geminiVersion: 'v1',
      geminiSafetySetting: 'BLOCK_MEDIUM_AND_ABOVE',
      metricQueueSize: 20,
      metricSuccessRateThreshold: 0.65,
    });
  });

  it.each([
    ['true', true],
    ['1', true],
    ['yes', true],
    ['false', false],
    ['0', false],
    ['no', false],
  ])('reads DEBUG=%s as %s', (value, expected) => {
    expect(read({ DEBUG: value }).debug).toBe(expected);
  });

  it('generates a session secret only when SESSION_SECRET is unset', () => {
    const generate = vi.fn(() => 'fresh-random-secret');
    const generated = readConfig({}, generate);
    expect(generate).toHaveBeenCalledTimes(1);
    expect(generated.sessionSecret).toBe('fresh-random-secret');
    expect(generated.sessionSecretGenerated).toBe(true);

    const fixed = vi.fn(() => 'never-used');
    const given = readConfig({ SESSION_SECRET: 'operator-secret' }, fixed);
    expect(fixed).not.toHaveBeenCalled();
    expect(given.sessionSecret).toBe('operator-secret');
    expect(given.sessionSecretGenerated).toBe(false);
  });

  it.each([
    ['root:123456@tcp(localhost:3306)/oneapi'],
    ['root:123456@tcp(localhost:3306)/oneapi?charset=utf8mb4&parseTime=True&loc=Local'],
    ['root@tcp(127.0.0.1:3306)/test'],
    ['oneapi:p@ss@tcp(db:3306)/oneapi'],
    ['oneapi:secret@unix(/var/run/mysqld/mysqld.sock)/oneapi'],
    ['mysql://root:123456@localhost:3306/oneapi'],
    ['postgres://postgres:123456@localhost:5432/oneapi'],
    ['postgresql://postgres@localhost/oneapi?sslmode=disable'],
  ])('accepts SQL_DSN=%s', (dsn) => {
    expect(read({ SQL_DSN: dsn }).sqlDsn).toBe(dsn);
    expect(read({ LOG_SQL_DSN: dsn }).logSqlDsn).toBe(dsn);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '0'],
    ['PORT', '30.5'],
    ['SQL_DSN', 'garbage'],
    ['SQL_DSN', 'root:pw@localhost:3306/oneapi'],
    ['LOG_SQL_DSN', 'sqlite:///tmp/x.db'],
    ['REDIS_CONN_STRING', 'http://x'],
    ['REDIS_CONN_STRING', 'localhost:6379'],
    ['NODE_TYPE', 'boss'],
    ['TRUST_PROXY', 'sure'],
    ['MAX_REQUEST_BODY_MB', '0'],
    ['INITIAL_ROOT_TOKEN', 'sk-short'],
    ['INITIAL_ROOT_TOKEN', 'has spaces in it'],
    ['INITIAL_ROOT_ACCESS_TOKEN', 'short'],
    ['INITIAL_ROOT_ACCESS_TOKEN', 'x'.repeat(33)],
    ['SQLITE_PATH', '   '],
    ['RELAY_PROXY', 'proxy.internal:3128'],
    ['RELAY_PROXY', 'ftp://proxy.internal'],
    ['GEMINI_VERSION', 'latest/../x'],
    ['GEMINI_SAFETY_SETTING', 'BLOCK_SOME'],
    ['METRIC_SUCCESS_RATE_THRESHOLD', '1.5'],
    ['METRIC_SUCCESS_RATE_THRESHOLD', 'high'],
    ['METRIC_SUCCESS_RATE_THRESHOLD', '.'],
  ])('refuses %s=%s with a ConfigError naming the variable', (name, value) => {
    const error = configErrorOf({ [name]: value });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ConfigError');
    expect(error.message.startsWith(`${name}=`)).toBe(true);
    expect(error.message).toContain(JSON.stringify(value));
    // The reason follows the value.
    expect(error.message.length).toBeGreaterThan(`${name}=${JSON.stringify(value)} `.length);
  });

  it.each([
    ['SYNC_FREQUENCY', '60s', 'syncFrequencySeconds', 600],
    ['SYNC_FREQUENCY', '-5', 'syncFrequencySeconds', 600],
    ['GLOBAL_API_RATE_LIMIT', '-1', 'globalApiRateLimit', 480],
    ['GLOBAL_WEB_RATE_LIMIT', 'lots', 'globalWebRateLimit', 240],
    ['CRITICAL_RATE_LIMIT', '1e3', 'criticalRateLimit', 20],
    ['SQLITE_BUSY_TIMEOUT', 'soon', 'sqliteBusyTimeoutMs', 3000],
    ['SQL_MAX_OPEN_CONNS', '0', 'sqlMaxOpenConns', 50],
    ['RELAY_TIMEOUT', '99999999999999999999', 'relayTimeoutSeconds', 0],
    ['METRIC_QUEUE_SIZE', '0', 'metricQueueSize', 10],
    ['DEBUG', 'on', 'debug', false],
    ['DEBUG', 'maybe', 'debug', false],
    ['DEBUG_SQL', 'on', 'debugSql', false],
    ['ENABLE_METRIC', 'enabled', 'enableMetric', false],
  ] as const)(
    'reads one-api’s %s=%s as one-api does (its default), with a warning naming it',
    (name, value, field, expected) => {
      const config = read({ [name]: value });
      expect(config[field]).toBe(expected);
      expect(config.warnings).toHaveLength(1);
      expect(config.warnings[0]).toContain(`${name}=${JSON.stringify(value)}`);
      expect(config.warnings[0]).toContain('one-api ignores such a value');
    },
  );

  it('ignores one-api’s placeholder SESSION_SECRET=random_string as one-api does: a random secret, a loud warning', () => {
    const config = readConfig(
      { SESSION_SECRET: 'random_string' },
      () => 'fresh-random-secret',
      () => false,
    );
    expect(config.sessionSecret).toBe('fresh-random-secret');
    expect(config.sessionSecretGenerated).toBe(true);
    expect(config.warnings).toHaveLength(1);
    expect(config.warnings[0]).toContain('random_string');
  });

  it('opens one-api’s ./one-api.db when SQLITE_PATH is unset and it exists, and says so', () => {
    const here = (path: string) => path === './one-api.db';
    const config = readConfig({}, fixedSecret, here);
    expect(config.sqlitePath).toBe('./one-api.db');
    expect(config.billingJournalDir).toBe('journal');
    expect(config.warnings).toEqual([expect.stringContaining('./one-api.db')]);
    expect(readConfig({ SQLITE_PATH: '/data/sluice.db' }, fixedSecret, here).sqlitePath).toBe(
      '/data/sluice.db',
    );
    expect(readConfig({ SQL_DSN: 'postgres://db/oneapi' }, fixedSecret, here).warnings).toEqual([]);
    expect(readConfig({}, fixedSecret, () => false).sqlitePath).toBe('./data/sluice.db');
  });

  it('says which of one-api’s variables it does not read, and why', () => {
    const config = read({ THEME: 'berry', BATCH_UPDATE_ENABLED: 'true', MEMORY_CACHE_ENABLED: '' });
    expect(config.warnings).toEqual([
      expect.stringMatching(/^THEME is one-api's and Sluice does not read it: /),
      expect.stringMatching(/^BATCH_UPDATE_ENABLED is one-api's and Sluice does not read it: /),
    ]);
  });

  it('explains what is wrong', () => {
    expect(configErrorOf({ PORT: '70000' }).message).toBe('PORT="70000" must be a port number 1-65535');
    expect(configErrorOf({ PORT: 'abc' }).message).toBe('PORT="abc" must be a whole number ≥ 0');
    expect(configErrorOf({ NODE_TYPE: 'boss' }).message).toBe('NODE_TYPE="boss" must be master or slave');
    expect(configErrorOf({ REDIS_CONN_STRING: 'http://x' }).message).toBe(
      'REDIS_CONN_STRING="http://x" must be a redis:// or rediss:// URL (or, with REDIS_MASTER_NAME, the sentinels as host:port,host:port)',
    );
  });

  it('documents every variable with a default that parses', () => {
    const names = CONFIG_VARIABLES.map((variable) => variable.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'PORT',
        'SQL_DSN',
        'SQLITE_PATH',
        'REDIS_CONN_STRING',
        'SESSION_SECRET',
        'NODE_TYPE',
        'SYNC_FREQUENCY',
        'GLOBAL_API_RATE_LIMIT',
        'GLOBAL_WEB_RATE_LIMIT',
        'DEBUG',
        'FRONTEND_BASE_URL',
      ]),
    );
    expect(new Set(names).size).toBe(names.length);
    const fallbacks = Object.fromEntries(
      CONFIG_VARIABLES.map((variable) => [variable.name, variable.fallback]),
    );
    expect(fallbacks).toMatchObject({
      PORT: '3000',
      SQLITE_PATH: './data/sluice.db',
      SYNC_FREQUENCY: '600',
      GLOBAL_API_RATE_LIMIT: '480',
      GLOBAL_WEB_RATE_LIMIT: '240',
    });
    // Setting every variable to its documented default gives the same config as leaving it unset.
    expect(read(fallbacks)).toEqual(read({}));
  });
});

describe('dialectOf', () => {
  it.each([
    ['', 'sqlite'],
    ['   ', 'sqlite'],
    ['postgres://postgres@localhost/oneapi', 'postgres'],
    ['postgresql://postgres@localhost/oneapi', 'postgres'],
    ['root:123456@tcp(localhost:3306)/oneapi', 'mysql'],
    ['mysql://root@localhost/oneapi', 'mysql'],
  ])('names %j as %s', (dsn, dialect) => {
    expect(dialectOf(dsn)).toBe(dialect);
  });
});

describe('parseMysqlDsn', () => {
  it("reads one-api's Go form", () => {
    expect(parseMysqlDsn('root:123456@tcp(localhost:3306)/oneapi')).toEqual({
      host: 'localhost',
      port: 3306,
      user: 'root',
      password: '123456',
      database: 'oneapi',
    });
  });

  it('ignores the Go driver parameters it does not use', () => {
    expect(
      parseMysqlDsn('oneapi:pw@tcp(db.internal:3307)/one?charset=utf8mb4&parseTime=True&loc=Local'),
    ).toEqual({
      host: 'db.internal',
      port: 3307,
      user: 'oneapi',
      password: 'pw',
      database: 'one',
    });
  });

  it('reads a DSN without a password, without a port, and with an empty address', () => {
    expect(parseMysqlDsn('root@tcp(127.0.0.1:3306)/test')).toMatchObject({ user: 'root', password: '' });
    expect(parseMysqlDsn('root:pw@tcp(db)/test')).toMatchObject({ host: 'db', port: 3306 });
    expect(parseMysqlDsn('root:pw@tcp()/test')).toMatchObject({ host: '127.0.0.1', port: 3306 });
  });

  it('keeps @, : and / inside the password, as the Go driver does', () => {
    expect(parseMysqlDsn('oneapi:p@ss:w/rd@tcp(db:3306)/oneapi')).toEqual({
      host: 'db',
      port: 3306,
      user: 'oneapi',
      password: 'p@ss:w/rd',
      database: 'oneapi',
    });
  });

  it('reads a bracketed IPv6 address', () => {
    expect(parseMysqlDsn('root:pw@tcp([::1]:3307)/oneapi')).toMatchObject({ host: '::1', port: 3307 });
    expect(parseMysqlDsn('root:pw@tcp([fd00::5])/oneapi')).toMatchObject({ host: 'fd00::5', port: 3306 });
    // Unbracketed, an IPv6 literal is all host (Go's driver adds the default port).
    expect(parseMysqlDsn('root:pw@tcp(::1)/oneapi')).toMatchObject({ host: '::1', port: 3306 });
  });

  it('reads a unix socket', () => {
    expect(parseMysqlDsn('oneapi:secret@unix(/var/run/mysqld/mysqld.sock)/oneapi')).toEqual({
      host: 'localhost',
      port: 3306,
      user: 'oneapi',
      password: 'secret',
      database: 'oneapi',
      socketPath: '/var/run/mysqld/mysqld.sock',
    });
  });

  it('maps tls=skip-verify and tls=preferred to unverified TLS and tls=true to verified TLS', () => {
    expect(parseMysqlDsn('root:pw@tcp(db:3306)/one?tls=skip-verify').ssl).toEqual({
      rejectUnauthorized: false,
    });
    expect(parseMysqlDsn('root:pw@tcp(db:3306)/one?charset=utf8&tls=preferred').ssl).toEqual({
      rejectUnauthorized: false,
    });
    expect(parseMysqlDsn('root:pw@tcp(db:3306)/one?tls=true').ssl).toEqual({ rejectUnauthorized: true });
    expect(parseMysqlDsn('root:pw@tcp(db:3306)/one?tls=false')).not.toHaveProperty('ssl');
    expect(parseMysqlDsn('root:pw@unix(/tmp/my.sock)/one?tls=skip-verify')).toMatchObject({
      socketPath: '/tmp/my.sock',
      ssl: { rejectUnauthorized: false },
    });
  });

  it('reads a mysql:// URL, decoding the credentials', () => {
    expect(parseMysqlDsn('mysql://one%40api:p%40ss%2Fword@db.example.com:3310/one%2Dapi')).toEqual({
      host: 'db.example.com',
      port: 3310,
      user: 'one@api',
      password: 'p@ss/word',
      database: 'one-api',
    });
    expect(parseMysqlDsn('mysql://root@localhost/oneapi')).toMatchObject({ port: 3306, password: '' });
    expect(parseMysqlDsn('mysql://root@localhost/oneapi?tls=skip-verify').ssl).toEqual({
      rejectUnauthorized: false,
    });
    expect(parseMysqlDsn('mysql://root@localhost/oneapi')).not.toHaveProperty('ssl');
  });

  it('refuses what is not a MySQL DSN', () => {
    expect(() => parseMysqlDsn('garbage')).toThrow(/SQL_DSN/);
    expect(() => parseMysqlDsn('root:pw@localhost:3306/oneapi')).toThrow(/SQL_DSN/);
    expect(() => parseMysqlDsn('root:pw@tcp(db:3306)')).toThrow(/SQL_DSN/);
  });

  it('agrees with readConfig: every DSN readConfig accepts for MySQL parses', () => {
    for (const dsn of [
      'root:123456@tcp(localhost:3306)/oneapi',
      'oneapi:p@ss@tcp(db:3306)/oneapi',
      'root@tcp(127.0.0.1:3306)/test?tls=skip-verify',
      'oneapi:secret@unix(/var/run/mysqld/mysqld.sock)/oneapi',
      'mysql://root:123456@localhost:3306/oneapi',
    ]) {
      const config = read({ SQL_DSN: dsn });
      expect(dialectOf(config.sqlDsn)).toBe('mysql');
      expect(() => parseMysqlDsn(config.sqlDsn)).not.toThrow();
    }
  });
});
