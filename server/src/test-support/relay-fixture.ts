import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import OpenAI from 'openai';
import type { Dialect } from '../db/dsn.js';
import { hashPassword } from '../lib/password.js';
import { generateTokenKey } from '../lib/keys.js';
import { nowSeconds } from '../lib/time.js';
import { apiClient, type ApiClient } from './api-client.js';
import { listenSluice, type Listening } from './listen.js';
import { startTestSluice, type TestSluice } from './test-sluice.js';

export interface RelayFixture {
  readonly test: TestSluice;
  readonly server: Listening;
  readonly root: ApiClient;
  /** Creates a channel through POST /api/channel/ and answers its id. */
  channel(fields: Record<string, unknown>): Promise<number>;
  /** A common user with quota and one key; answers ids, the key and an SDK client using it. */
  user(options?: { quota?: number; group?: string; token?: Partial<TokenFields> }): Promise<RelayUser>;
  close(): Promise<void>;
}

interface TokenFields {
  remain_quota: number;
  unlimited_quota: boolean;
  models: string;
  subnet: string;
  expired_time: number;
  used_quota: number;
  status: number;
  rpm_limit: number;
  tpm_limit: number;
  concurrency_limit: number;
  budget_5h: number;
  budget_daily: number;
  budget_weekly: number;
  budget_monthly: number;
}

export interface RelayUser {
  readonly userId: number;
  readonly tokenId: number;
  readonly key: string;
  readonly sdk: OpenAI;
}

let counter = 0;

/** A running Sluice (real HTTP), root logged in, and helpers to add channels and paying users. */
export const startRelayFixture = async (
  dialect: Dialect,
  env: Record<string, string> = {},
): Promise<RelayFixture> => {
  const test = await startTestSluice(dialect, env);
  const server = await listenSluice(test.sluice);
  const root = apiClient(test.sluice.app);
  await root.login('root', '123456');
  const db = test.sluice.database.db;
  const password = await hashPassword('password123');
  return {
    test,
    server,
    root,
    channel: async (fields) => {
      const created = await root.post('/api/channel/', {
        name: 'channel',
        type: CHANNEL_TYPE.openAi,
        key: 'sk-upstream-secret-key-000',
        models: 'gpt-3.5-turbo',
        group: 'default',
        ...fields,
      });
      if (created.body.success !== true) throw new Error(`channel not created: ${created.body.message}`);
      const row = await db
        .selectFrom('channels')
        .select('id')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      return row.id;
    },
    user: async (options = {}) => {
      counter += 1;
      const username = `u${counter}${Date.now() % 100000}`.slice(0, 12);
      await db
        .insertInto('users')
        .values({
          username,
          password,
          display_name: username,
          role: 1,
          status: 1,
          quota: options.quota ?? 10_000_000,
          used_quota: 0,
          request_count: 0,
          group: options.group ?? 'default',
          access_token: null,
          aff_code: null,
          inviter_id: 0,
        })
        .executeTakeFirst();
      const user = await db
        .selectFrom('users')
        .select('id')
        .where('username', '=', username)
        .executeTakeFirstOrThrow();
      const key = generateTokenKey();
      await db
        .insertInto('tokens')
        .values({
          user_id: user.id,
          key,
          status: 1,
          name: 'test key',
          created_time: nowSeconds(),
          accessed_time: nowSeconds(),
          expired_time: -1,
          remain_quota: 0,
          unlimited_quota: true,
          used_quota: 0,
          models: '',
          subnet: '',
          ...options.token,
        })
        .execute();
      const token = await db
        .selectFrom('tokens')
        .select('id')
        .where('key', '=', key)
        .executeTakeFirstOrThrow();
      const sdk = new OpenAI({
        apiKey: `sk-${key}`,
        baseURL: `${server.url}/v1`,
        maxRetries: 0,
        timeout: 20_000,
      });
      return { userId: user.id, tokenId: token.id, key, sdk };
    },
    close: async () => {
      await server.close();
      await test.close();
    },
  };
};
