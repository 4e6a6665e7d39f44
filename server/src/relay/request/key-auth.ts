import { ROLES } from '@sluice/contract/roles';
import { TOKEN_STATUS, USER_STATUS } from '@sluice/contract/statuses';
import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import { type AppError, relayError } from '../../lib/app-error.js';
import { nowSeconds } from '../../lib/time.js';
import type { ChangeFeed } from '../../services/change-feed.js';
import type { TokenRow } from '../../services/token-record.js';
import type { UserRow } from '../../services/user-record.js';
import { ipInSubnets } from './ip-match.js';
import type { RelayIndex } from '../routing/relay-index.js';

export interface KeyAuth {
  readonly token: TokenRow;
  readonly user: UserRow;
  /** The admin-only `sk-<key>-<channelId>` suffix. */
  readonly channelId?: number;
}

/** `Bearer sk-<key>[-<channelId>]` → key and optional channel id. */
export const parseKey = (header: string | undefined): { key: string; channel?: string } => {
  let value = (header ?? '').trim();
  if (value.toLowerCase().startsWith('bearer ')) value = value.slice(7).trim();
  if (value.startsWith('sk-')) value = value.slice(3);
  const [key = '', channel] = value.split('-');
  return channel === undefined ? { key } : { key, channel };
};

const freshRemain = async (db: Kysely<Tables>, token: TokenRow): Promise<number> => {
  const row = await db
    .selectFrom('tokens')
    .select('remain_quota')
    .where('id', '=', token.id)
    .executeTakeFirst();
  return row?.remain_quota ?? token.remain_quota;
};

/** The checks that need no database: subnet, banned user, the admin-only channel suffix. */
const admit = (
  token: TokenRow,
  user: UserRow | undefined,
  channel: string | undefined,
  clientIp: string,
): KeyAuth => {
  if (token.subnet && !ipInSubnets(clientIp, token.subnet))
    throw relayError(
      403,
      'subnet_refused',
      `this token may only be used from subnets ${token.subnet}, current ip ${clientIp}`,
    );
  if (!user || user.status !== USER_STATUS.enabled) throw relayError(403, 'user_banned', 'user is banned');
  if (channel === undefined) return { token, user };
  if (user.role < ROLES.admin)
    throw relayError(403, 'channel_refused', 'common users cannot specify a channel');
  if (!/^\d{1,12}$/.test(channel)) throw relayError(400, 'invalid_channel', 'invalid channel id');
  return { token, user, channelId: Number(channel) };
};

const invalidToken = (): AppError => relayError(401, 'invalid_token', 'invalid token');

type AuthDeps = { db: Kysely<Tables>; index: RelayIndex; changes: ChangeFeed };

/**
 * Authenticates a relay key as one-api does (§4.2): status, expiry (status 3 written), exhaustion
 * (status 4 written), subnet, banned user, the admin-only channel suffix. An enabled unlimited key
 * whose key and user are in memory is answered at once, without a promise; every other case (a
 * limited key's balance is read fresh, statuses are written) takes the database path.
 */
export const authenticateKey = (
  deps: AuthDeps,
  header: string | undefined,
  clientIp: string,
): KeyAuth | Promise<KeyAuth> => {
  const { key, channel } = parseKey(header);
  if (key === '') throw relayError(401, 'no_token', 'no token provided');
  const cached = deps.index.peekToken(key);
  if (
    cached?.unlimited_quota &&
    cached.status === TOKEN_STATUS.enabled &&
    (cached.expired_time === -1 || cached.expired_time >= nowSeconds())
  ) {
    const user = deps.index.peekUser(cached.user_id);
    if (user) return admit(cached, user, channel, clientIp);
  } else if (!cached && deps.index.knownUnknown(key)) throw invalidToken();
  return authenticateStored(deps, key, channel, clientIp);
};

const authenticateStored = async (
  deps: AuthDeps,
  key: string,
  channel: string | undefined,
  clientIp: string,
): Promise<KeyAuth> => {
  const cached = deps.index.peekToken(key) ?? (await deps.index.token(key));
  if (!cached) throw invalidToken();
  // A limited key's balance moves with every request on every instance: read it fresh, never cached.
  const token = cached.unlimited_quota
    ? cached
    : { ...cached, remain_quota: await freshRemain(deps.db, cached) };
  const markStatus = async (status: number) => {
    await deps.db.updateTable('tokens').set({ status }).where('id', '=', token.id).execute();
    await deps.changes.emit({ kind: 'token', id: key });
  };
  if (token.status === TOKEN_STATUS.exhausted)
    throw relayError(401, 'token_exhausted', `token ${token.name ?? ''} (#${token.id}) quota exhausted`);
  if (token.status === TOKEN_STATUS.expired) throw relayError(401, 'token_expired', 'token expired');
  if (token.status !== TOKEN_STATUS.enabled)
    throw relayError(401, 'token_disabled', 'token status unavailable');
  if (token.expired_time !== -1 && token.expired_time < nowSeconds()) {
    await markStatus(TOKEN_STATUS.expired);
    throw relayError(401, 'token_expired', 'token expired');
  }
  if (!token.unlimited_quota && token.remain_quota <= 0) {
    await markStatus(TOKEN_STATUS.exhausted);
    throw relayError(401, 'token_exhausted', 'token quota exhausted');
  }
  const user = deps.index.peekUser(token.user_id) ?? (await deps.index.user(token.user_id));
  return admit(token, user, channel, clientIp);
};
