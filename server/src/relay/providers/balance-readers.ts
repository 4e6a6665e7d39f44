import { z } from 'zod';
import { AppError } from '../../lib/app-error.js';

/**
 * How a provider's balance is read: the pure part (the URL, the headers, the answer's shape). The
 * caller does the I/O through `get`, which answers the parsed JSON of a 200 or throws.
 */
export type BalanceGet = (url: string, headers: Record<string, string>) => Promise<unknown>;

export interface BalanceReader {
  /** The balance API's base URL when the channel sets none (not always the relay's). */
  readonly base: string;
  read(get: BalanceGet, base: string, key: string): Promise<number>;
}

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
const openAiBalance = async (get: BalanceGet, base: string, key: string): Promise<number> => {
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
  (field: 'total_available' | 'total_remaining') => async (get: BalanceGet, base: string, key: string) =>
    z
      .object({ [field]: number })
      .parse(await get(`${base}/dashboard/billing/credit_grants`, { authorization: `Bearer ${key}` }))[
      field
    ] as number;

/** one-api's balance readers (each with its provider's documented endpoint), by channel type name. */
export const BALANCE_READERS = {
  openAi: { base: 'https://api.openai.com', read: openAiBalance },
  custom: { base: '', read: openAiBalance },
  closeAi: { base: 'https://api.closeai-proxy.xyz', read: creditGrants('total_available') },
  api2gpt: { base: 'https://api.api2gpt.com', read: creditGrants('total_remaining') },
  aigc2d: { base: 'https://api.aigc2d.com', read: creditGrants('total_available') },
  openAiSb: {
    base: 'https://api.openai-sb.com',
    read: async (get, base, key) =>
      z
        .object({ data: z.object({ credit: number }) })
        .parse(await get(`${base}/sb-api/user/status?api_key=${encodeURIComponent(key)}`, {})).data.credit,
  },
  aiProxy: {
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
  siliconFlow: {
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
  deepSeek: {
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
  openRouter: {
    base: 'https://openrouter.ai/api',
    read: async (get, base, key) => {
      const body = z
        .object({ data: z.object({ total_credits: number, total_usage: number }) })
        .parse(await get(`${base}/v1/credits`, { authorization: `Bearer ${key}` }));
      return body.data.total_credits - body.data.total_usage;
    },
  },
} satisfies Record<string, BalanceReader>;
