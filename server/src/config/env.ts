import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { describeZodIssue } from '../lib/zod-issue.js';
import {
  accessToken,
  bool,
  fraction,
  httpUrl,
  isHostList,
  nodeType,
  nonNegativeInt,
  port,
  proxyUrl,
  redisUrl,
  rootToken,
  seconds,
  sqlDsn,
} from './env-values.js';
import { ONE_API_IGNORED, PLACEHOLDER_SECRET, sqlitePathOf } from './one-api-env.js';

/** Parsed, frozen configuration. `readConfig` is the only reader of process.env. */
export interface Config {
  readonly port: number;
  readonly sqlDsn: string;
  readonly sqlitePath: string;
  readonly sqliteBusyTimeoutMs: number;
  readonly logSqlDsn: string;
  readonly sqlMaxOpenConns: number;
  readonly redisConnString: string;
  /**
   * one-api's REDIS_MASTER_NAME: Redis through Sentinel, REDIS_CONN_STRING then being the sentinels'
   * `host:port` list ('' = a plain redis:// URL).
   */
  readonly redisMasterName: string;
  /** one-api's REDIS_PASSWORD: the password of the Redis behind Sentinel. */
  readonly redisPassword: string;
  readonly sessionSecret: string;
  readonly sessionSecretGenerated: boolean;
  /** Said in the log at start: values one-api tolerates that Sluice read its way, a weak secret, … */
  readonly warnings: readonly string[];
  readonly nodeType: 'master' | 'slave';
  readonly syncFrequencySeconds: number;
  /**
   * Seconds between checks of the keys, users and channels the relay keeps in memory against the
   * database, for changes made behind Sluice's back (a hand-written UPDATE); 0 = never.
   */
  readonly statusCheckSeconds: number;
  readonly globalApiRateLimit: number;
  readonly globalWebRateLimit: number;
  readonly criticalRateLimit: number;
  readonly debug: boolean;
  readonly debugSql: boolean;
  readonly initialRootToken: string;
  readonly initialRootAccessToken: string;
  readonly frontendBaseUrl: string;
  readonly webDistPath: string;
  /**
   * one-api's RELAY_TIMEOUT: the upstream call's timeout in seconds (0 = Sluice's defaults, see
   * relay/upstream/upstream.ts); a fraction is allowed.
   */
  readonly relayTimeoutSeconds: number;
  /**
   * The default of each step of an upstream call, in seconds (0 = RELAY_TIMEOUT's, or Sluice's):
   * RELAY_CONNECT_TIMEOUT, RELAY_FIRST_BYTE_TIMEOUT, RELAY_IDLE_TIMEOUT. A channel's config sets its own.
   */
  readonly relayStepTimeouts: {
    readonly connectSeconds: number;
    readonly firstByteSeconds: number;
    readonly idleSeconds: number;
  };
  /**
   * Where each settlement is journaled before its answer ends (a crash then loses no billing):
   * by default `journal/` beside the SQLite file; undefined with BILLING_JOURNAL_DIR=off.
   */
  readonly billingJournalDir: string | undefined;
  /** one-api's RELAY_PROXY: the proxy every upstream call goes through ('' = none). */
  readonly relayProxy: string;
  /** one-api's GEMINI_VERSION: the Gemini API version of channels that set none ('' = v1beta). */
  readonly geminiVersion: string;
  /** one-api's GEMINI_SAFETY_SETTING: the threshold of every Gemini safety category. */
  readonly geminiSafetySetting: string;
  /** Minutes between automatic tests of every channel (one-api's CHANNEL_TEST_FREQUENCY); 0 = never. */
  readonly channelTestFrequencyMinutes: number;
  /** Seconds to wait between channels in test-all and balance-all runs (one-api's POLLING_INTERVAL). */
  readonly pollingIntervalSeconds: number;
  /** one-api's ENABLE_METRIC: disable a channel whose recent success rate is too low. */
  readonly enableMetric: boolean;
  readonly metricQueueSize: number;
  readonly metricSuccessRateThreshold: number;
  readonly maxRequestBodyBytes: number;
  readonly trustProxy: boolean;
  /** Provider endpoints of third-party login and the human check (tests point them at doubles). */
  readonly githubOAuthUrl: string;
  readonly githubApiUrl: string;
  readonly larkOpenUrl: string;
  readonly larkPassportUrl: string;
  readonly turnstileVerifyUrl: string;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * One row per variable: name, parser, default. Keeps the README's configuration table honest. A
 * `lenient` row is one of one-api's numbers or switches, which one-api reads with Go's fallbacks (a
 * number it cannot parse is its default, a switch is on only for `true`): a value Sluice's parser
 * refuses there is warned about and read as one-api reads it, so one-api's env keeps working.
 */
const variables = {
  PORT: { schema: port, fallback: '3000' },
  SQL_DSN: { schema: sqlDsn, fallback: '' },
  SQLITE_PATH: { schema: z.string().trim().min(1, 'must not be empty'), fallback: './data/sluice.db' },
  SQLITE_BUSY_TIMEOUT: { lenient: true, schema: nonNegativeInt, fallback: '3000' },
  LOG_SQL_DSN: { schema: sqlDsn, fallback: '' },
  SQL_MAX_OPEN_CONNS: {
    lenient: true,
    schema: nonNegativeInt.refine((v) => v >= 1, 'must be ≥ 1'),
    fallback: '50',
  },
  REDIS_CONN_STRING: { schema: redisUrl, fallback: '' },
  REDIS_MASTER_NAME: { schema: z.string().trim(), fallback: '' },
  REDIS_PASSWORD: { schema: z.string(), fallback: '' },
  SESSION_SECRET: { schema: z.string(), fallback: '' },
  NODE_TYPE: { schema: nodeType, fallback: 'master' },
  SYNC_FREQUENCY: { lenient: true, schema: nonNegativeInt, fallback: '600' },
  STATUS_CHECK_FREQUENCY: { schema: seconds, fallback: '5' },
  GLOBAL_API_RATE_LIMIT: { lenient: true, schema: nonNegativeInt, fallback: '480' },
  GLOBAL_WEB_RATE_LIMIT: { lenient: true, schema: nonNegativeInt, fallback: '240' },
  CRITICAL_RATE_LIMIT: { lenient: true, schema: nonNegativeInt, fallback: '20' },
  DEBUG: { lenient: true, schema: bool, fallback: 'false' },
  DEBUG_SQL: { lenient: true, schema: bool, fallback: 'false' },
  INITIAL_ROOT_TOKEN: { schema: rootToken, fallback: '' },
  INITIAL_ROOT_ACCESS_TOKEN: { schema: accessToken, fallback: '' },
  FRONTEND_BASE_URL: { schema: z.string().trim(), fallback: '' },
  WEB_DIST_PATH: { schema: z.string().trim(), fallback: '' },
  BILLING_JOURNAL_DIR: { schema: z.string().trim(), fallback: '' },
  RELAY_TIMEOUT: { lenient: true, schema: seconds, fallback: '0' },
  RELAY_CONNECT_TIMEOUT: { lenient: true, schema: seconds, fallback: '0' },
  RELAY_FIRST_BYTE_TIMEOUT: { lenient: true, schema: seconds, fallback: '0' },
  RELAY_IDLE_TIMEOUT: { lenient: true, schema: seconds, fallback: '0' },
  RELAY_PROXY: { schema: proxyUrl, fallback: '' },
  GEMINI_VERSION: {
    schema: z
      .string()
      .trim()
      .regex(/^(v\d+(alpha|beta)?\d*)?$/, 'must be an API version such as v1 or v1beta'),
    fallback: '',
  },
  GEMINI_SAFETY_SETTING: {
    schema: z
      .string()
      .trim()
      .toUpperCase()
      .refine(
        (value) =>
          ['BLOCK_NONE', 'BLOCK_ONLY_HIGH', 'BLOCK_MEDIUM_AND_ABOVE', 'BLOCK_LOW_AND_ABOVE', 'OFF'].includes(
            value,
          ),
        'must be BLOCK_NONE, BLOCK_ONLY_HIGH, BLOCK_MEDIUM_AND_ABOVE, BLOCK_LOW_AND_ABOVE or OFF',
      ),
    fallback: 'BLOCK_NONE',
  },
  CHANNEL_TEST_FREQUENCY: { lenient: true, schema: nonNegativeInt, fallback: '0' },
  POLLING_INTERVAL: { lenient: true, schema: nonNegativeInt, fallback: '0' },
  ENABLE_METRIC: { lenient: true, schema: bool, fallback: 'false' },
  METRIC_QUEUE_SIZE: {
    lenient: true,
    schema: nonNegativeInt.refine((v) => v >= 1, 'must be ≥ 1'),
    fallback: '10',
  },
  METRIC_SUCCESS_RATE_THRESHOLD: { schema: fraction, fallback: '0.8' },
  MAX_REQUEST_BODY_MB: { schema: nonNegativeInt.refine((v) => v >= 1, 'must be ≥ 1'), fallback: '32' },
  TRUST_PROXY: { schema: bool, fallback: 'false' },
  GITHUB_OAUTH_URL: { schema: httpUrl, fallback: 'https://github.com' },
  GITHUB_API_URL: { schema: httpUrl, fallback: 'https://api.github.com' },
  LARK_OPEN_URL: { schema: httpUrl, fallback: 'https://open.feishu.cn' },
  LARK_PASSPORT_URL: { schema: httpUrl, fallback: 'https://passport.feishu.cn' },
  TURNSTILE_VERIFY_URL: {
    schema: httpUrl,
    fallback: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
  },
} as const;

type VariableName = keyof typeof variables;
type Parsed = { [K in VariableName]: z.output<(typeof variables)[K]['schema']> };

/** Names and defaults of every variable, for documentation tests. */
export const CONFIG_VARIABLES: readonly { name: string; fallback: string }[] = Object.entries(variables).map(
  ([name, { fallback }]) => ({ name, fallback }),
);

const parseAll = (env: Readonly<Record<string, string | undefined>>, warnings: string[]): Parsed => {
  const parsed: Partial<Record<VariableName, unknown>> = {};
  for (const [name, row] of Object.entries(variables) as [VariableName, (typeof variables)[VariableName]][]) {
    const { schema, fallback } = row;
    const raw = env[name];
    const result = (schema as z.ZodType).safeParse(raw === undefined || raw === '' ? fallback : raw);
    if (result.success) {
      parsed[name] = result.data;
      continue;
    }
    const reason = describeZodIssue(result.error, 'is invalid');
    if (!('lenient' in row)) throw new ConfigError(`${name}=${JSON.stringify(raw)} ${reason}`);
    warnings.push(
      `${name}=${JSON.stringify(raw)} ${reason}: one-api ignores such a value and so does Sluice (${fallback} is used)`,
    );
    parsed[name] = (schema as z.ZodType).parse(fallback);
  }
  return parsed as Parsed;
};

export const readConfig = (
  env: Readonly<Record<string, string | undefined>>,
  generateSecret: () => string,
  fileExists: (path: string) => boolean = existsSync,
): Config => {
  const warnings: string[] = [];
  const values = parseAll(env, warnings);
  for (const [name, why] of Object.entries(ONE_API_IGNORED))
    if ((env[name] ?? '') !== '') warnings.push(`${name} is one-api's and Sluice does not read it: ${why}`);
  const placeholder = values.SESSION_SECRET === PLACEHOLDER_SECRET;
  if (placeholder)
    warnings.push(
      `SESSION_SECRET is one-api's placeholder ${PLACEHOLDER_SECRET}, which anyone can read in its compose file: it is ignored (as one-api ignores it) and a random secret is used, so sessions end when Sluice restarts. Set a secret of your own.`,
    );
  const generated = values.SESSION_SECRET === '' || placeholder;
  const sessionSecret = generated ? generateSecret() : values.SESSION_SECRET;
  const sqlitePath = sqlitePathOf(env, values.SQLITE_PATH, fileExists, warnings);
  const sentinel = values.REDIS_MASTER_NAME !== '';
  if (values.REDIS_CONN_STRING !== '' && sentinel !== isHostList(values.REDIS_CONN_STRING))
    throw new ConfigError(
      sentinel
        ? `REDIS_CONN_STRING=${JSON.stringify(values.REDIS_CONN_STRING)} must list the sentinels as host:port,host:port when REDIS_MASTER_NAME is set`
        : `REDIS_CONN_STRING=${JSON.stringify(values.REDIS_CONN_STRING)} lists hosts: set REDIS_MASTER_NAME to reach Redis through Sentinel, or give a redis:// URL`,
    );
  return Object.freeze({
    port: values.PORT,
    sqlDsn: values.SQL_DSN,
    sqlitePath,
    sqliteBusyTimeoutMs: values.SQLITE_BUSY_TIMEOUT,
    logSqlDsn: values.LOG_SQL_DSN,
    sqlMaxOpenConns: values.SQL_MAX_OPEN_CONNS,
    redisConnString: values.REDIS_CONN_STRING,
    redisMasterName: values.REDIS_MASTER_NAME,
    redisPassword: values.REDIS_PASSWORD,
    sessionSecret,
    sessionSecretGenerated: generated,
    warnings,
    nodeType: values.NODE_TYPE,
    syncFrequencySeconds: values.SYNC_FREQUENCY,
    statusCheckSeconds: values.STATUS_CHECK_FREQUENCY,
    globalApiRateLimit: values.GLOBAL_API_RATE_LIMIT,
    globalWebRateLimit: values.GLOBAL_WEB_RATE_LIMIT,
    criticalRateLimit: values.CRITICAL_RATE_LIMIT,
    debug: values.DEBUG,
    debugSql: values.DEBUG_SQL,
    initialRootToken: values.INITIAL_ROOT_TOKEN,
    initialRootAccessToken: values.INITIAL_ROOT_ACCESS_TOKEN,
    frontendBaseUrl: values.FRONTEND_BASE_URL.replace(/\/+$/, ''),
    webDistPath: values.WEB_DIST_PATH,
    relayTimeoutSeconds: values.RELAY_TIMEOUT,
    relayStepTimeouts: {
      connectSeconds: values.RELAY_CONNECT_TIMEOUT,
      firstByteSeconds: values.RELAY_FIRST_BYTE_TIMEOUT,
      idleSeconds: values.RELAY_IDLE_TIMEOUT,
    },
    billingJournalDir:
      values.BILLING_JOURNAL_DIR === 'off'
        ? undefined
        : values.BILLING_JOURNAL_DIR || join(dirname(sqlitePath), 'journal'),
    relayProxy: values.RELAY_PROXY,
    geminiVersion: values.GEMINI_VERSION,
    geminiSafetySetting: values.GEMINI_SAFETY_SETTING,
    channelTestFrequencyMinutes: values.CHANNEL_TEST_FREQUENCY,
    pollingIntervalSeconds: values.POLLING_INTERVAL,
    enableMetric: values.ENABLE_METRIC,
    metricQueueSize: values.METRIC_QUEUE_SIZE,
    metricSuccessRateThreshold: values.METRIC_SUCCESS_RATE_THRESHOLD,
    maxRequestBodyBytes: values.MAX_REQUEST_BODY_MB * 1024 * 1024,
    trustProxy: values.TRUST_PROXY,
    githubOAuthUrl: values.GITHUB_OAUTH_URL,
    githubApiUrl: values.GITHUB_API_URL,
    larkOpenUrl: values.LARK_OPEN_URL,
    larkPassportUrl: values.LARK_PASSPORT_URL,
    turnstileVerifyUrl: values.TURNSTILE_VERIFY_URL,
  });
};
