import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Tables } from '../db/tables.js';
import { AppError } from '../lib/app-error.js';
import { nowSeconds } from '../lib/time.js';
import type { BalanceGet } from '../relay/providers/balance-readers.js';
import { providerOf } from '../relay/providers/registry.js';
import { channelMetaOf } from '../relay/routing/channel-meta.js';
import type { ChannelRow } from '../relay/routing/relay-index.js';
import type { Upstream } from '../relay/upstream/upstream.js';
import { scrub } from '../relay/pipeline/upstream-error.js';

/** Whether the channel's type has a balance reader (the registry's row says). */
export const supportsBalance = (type: number): boolean => providerOf(type)?.balance !== undefined;

/** Reads a channel's balance from its provider (honouring base_url) and stores it. */
export const updateBalance = async (
  deps: { db: Kysely<Tables>; upstream: Upstream },
  row: ChannelRow,
): Promise<number> => {
  const provider = providerOf(row.type);
  const reader = provider?.balance;
  if (!reader) throw new AppError('not_implemented', 'not implemented');
  const channel = channelMetaOf(row, provider);
  const base = ((row.base_url ?? '').trim() || reader.base).replace(/\/+$/, '');
  if (base === '') throw new AppError('balance_failed', 'the channel has no base URL');
  const get: BalanceGet = async (url, headers) => {
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
