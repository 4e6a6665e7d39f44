import { pricingAnswerSchema } from '@sluice/contract/schemas/pricing';
import { tokenSchema } from '@sluice/contract/schemas/token';
import { TOKEN_STATUS } from '@sluice/contract/statuses';
import { parseJson } from '@sluice/contract/parse-json';
import { z } from 'zod';
import { API_BASE, api, apiGetFlat, apiGetPage } from '../../lib/api-client.js';
import { errorMessageOf } from './reply-reader.js';

/** The playground's calls: the caller's keys, a session key, a key's models, the prices. */

/** The keys a picker lists (one page of the largest size the list serves). */
export const KEY_PAGE_SIZE = 100;

/** GET /api/token/: the caller's enabled keys, with their full key (as the token list's copy button has it). */
export const listKeys = async () => {
  const page = await apiGetPage('/api/token/', tokenSchema, { p: 0, size: KEY_PAGE_SIZE });
  return page.items.filter((token) => token.status === TOKEN_STATUS.enabled);
};

/** A session key's lifetime: a day. */
export const SESSION_KEY_SECONDS = 24 * 60 * 60;

/** `playground-2026-11-28`: the name of the key the page creates for a session. */
export const sessionKeyName = (now: Date): string => `playground-${now.toISOString().slice(0, 10)}`;

/** POST /api/token/: a key for this session, named by the day, expiring in a day, drawing on the user's quota. */
export const createSessionKey = (now: Date) =>
  api.post(
    '/api/token/',
    {
      name: sessionKeyName(now),
      remain_quota: 0,
      unlimited_quota: true,
      expired_time: Math.floor(now.getTime() / 1000) + SESSION_KEY_SECONDS,
      models: '',
      subnet: '',
    },
    tokenSchema,
  );

const modelListSchema = z.object({ data: z.array(z.object({ id: z.string() })) });

/** GET /v1/models with the key: the models that key may use, sorted. */
export const keyModels = async (key: string): Promise<string[]> => {
  const response = await fetch(`${API_BASE}/v1/models`, { headers: { authorization: `Bearer sk-${key}` } });
  const body = await response.text();
  // Not an HttpError: a refused key must not sign the user out of the console (spec §8's 401 rule).
  if (!response.ok) throw new Error(errorMessageOf(response.status, body));
  return modelListSchema
    .parse(parseJson(body))
    .data.map((model) => model.id)
    .sort((left, right) => left.localeCompare(right));
};

/** GET /api/pricing: the ratios a reply's cost is worked out from. */
export const getPricing = () => apiGetFlat('/api/pricing', pricingAnswerSchema);
