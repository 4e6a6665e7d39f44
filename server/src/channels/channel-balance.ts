import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Tables } from '../db/tables.js';
import { AppError } from '../lib/app-error.js';
import { nowSeconds } from '../lib/time.js';
import { providerOf } from '../relay/providers/registry.js';
import { channelMetaOf } from '../relay/routing/channel-meta.js';
import type { ChannelRow } from '../relay/routing/relay-index.js';
import type { Upstream } from '../relay/upstream/upstream.js';
import { scrub } from '../relay/pipeline/upstream-error.js';

type Get = (url: string, headers: Record<string, string>) => Promise<unknown>;

const number = z.union([
  z.number(),
  z
    .string()
    .regex(/^-?\d+(\.\d+)?$/)
    .transform(Number),
]);

const firstOfMonth = () => {
  const now = new Date();
  return `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}-01`;
};
const day = (date: Date) => date.toISOString().slice(0, 10);

/** OpenAI's dashboard billing: hard limit minus this month's usage (cents). */
const openAiBalance = async (get: Get, base: string, key: string): Promise<number> => {
  const auth = { authorization: `Bearer ${key}` };
  const subscription = z
    .object({ hard_limit_usd: number, has_payment_method: z.boolean().optional() })
    .parse(await get(`${base}/v1/dashboard/billing/subscription`, auth));
  const start =
    subscription.has_payment_method === false ? day(new Date(Date.now() - 100 * 86_400_000)) : firstOfMonth();
  const usage = z
    .object({ total_usage: number })
    .parse(
      await get(`${base}/v1/dashboard/billing/usage?start_date=${start}&end_date=${day(new Date())}`, auth),
    );
  return subscription.hard_limit_usd - usage.total_usage / 100;
};

const creditGrants =
  (field: 'total_available' | 'total_remaining') => async (get: Get, base: string, key: string) =>
    z
      .object({ [field]: number })
      .parse(await get(`${base}/dashboard/billing/credit_grants`, { authorization: `Bearer ${key}` }))[
      field
    ] as number;

/** Balance readers by channel type: one-api's list (with each provider's documented endpoint). */
const READERS: Record<
  number,
  { base: string; read: (get: Get, base: string, key: string) => Promise<number> }
> = {
  1: { base: 'https://api.openai.com', read: openAiBalance },
  8: { base: '', read: openAiBalance },
  4: { base: 'https://api.closeai-proxy.xyz', read: creditGrants('total_available') },
  12: { base: 'https://api.api2gpt.com', read: creditGrants('total_remaining') },
  13: { base: 'https://api.aigc2d.com', read: creditGrants('total_available') },
  5: {
    base: 'https://api.openai-sb.com',
    read: async (get, base, key) =>
      z
        .object({ data: z.object({ credit: number }) })
        .parse(await get(`${base}/sb-api/user/status?api_key=${encodeURIComponent(key)}`, {})).data.credit,
  },
  10: {
    base: 'https://aiproxy.io',
    read: async (get, base, key) => {
      const body = z
        .object({
          success: z.boolean(),
          message: z.string().optional(),
          data: z.object({ totalPoints: number }).optional(),
        })
        .parse(await get(`${base}/api/report/getUserOverview`, { 'api-key': key }));
      if (!body.success || !body.data)
        throw new AppError('balance_failed', body.message || 'the provider refused the balance query');
      return body.data.totalPoints;
    },
  },
  44: {
    base: 'https://api.siliconflow.cn',
    read: async (get, base, key) => {
      const body = z
        .object({
          code: z.number(),
          data: z.object({ totalBalance: number.optional(), balance: number.optional() }),
        })
        .parse(await get(`${base}/v1/user/info`, { authorization: `Bearer ${key}` }));
      if (body.code !== 20000)
        throw new AppError('balance_failed', `the provider answered code ${body.code}`);
      return body.data.totalBalance ?? body.data.balance ?? 0;
    },
  },
  36: {
    base: 'https://api.deepseek.com',
    read: async (get, base, key) => {
      const body = z
        .object({ balance_infos: z.array(z.object({ currency: z.string(), total_balance: number })) })
        .parse(await get(`${base}/user/balance`, { authorization: `Bearer ${key}` }));
      return (
        body.balance_infos.find((info) => info.currency === 'CNY')?.total_balance ??
        body.balance_infos[0]?.total_balance ??
        0
      );
    },
  },
  20: {
    base: 'https://openrouter.ai/api',
    read: async (get, base, key) => {
      const body = z
        .object({ data: z.object({ total_credits: number, total_usage: number }) })
        .parse(await get(`${base}/v1/credits`, { authorization: `Bearer ${key}` }));
      return body.data.total_credits - body.data.total_usage;
    },
  },
};

export const supportsBalance = (type: number): boolean => Object.hasOwn(READERS, type);

/** Reads a channel's balance from its provider (honouring base_url) and stores it. */
export const updateBalance = async (
  deps: { db: Kysely<Tables>; upstream: Upstream },
  row: ChannelRow,
): Promise<number> => {
  const reader = READERS[row.type];
  if (!reader) throw new AppError('not_implemented', 'not implemented');
  const channel = channelMetaOf(row, providerOf(row.type));
  const base = ((row.base_url ?? '').trim() || reader.base).replace(/\/+$/, '');
  if (base === '') throw new AppError('balance_failed', 'the channel has no base URL');
  const get: Get = async (url, headers) => {
    const response = await deps.upstream.get(url, headers, AbortSignal.timeout(15_000));
    if (response.status !== 200) throw new AppError('balance_failed', `status code: ${response.status}`);
    return response.json;
  };
  let balance: number;
  try {
    balance = await reader.read(get, base, channel.key);
  } catch (error) {
    // A provider's own message may quote the key or the address: never passed on as it came.
    if (error instanceof AppError)
      throw new AppError(error.code, scrub(error.message, channel), error.status);
    throw new AppError(
      'balance_failed',
      error instanceof z.ZodError
        ? 'the provider answered in an unexpected format'
        : 'the provider could not be reached',
    );
  }
  await deps.db
    .updateTable('channels')
    .set({ balance, balance_updated_time: nowSeconds() })
    .where('id', '=', row.id)
    .execute();
  return balance;
};
