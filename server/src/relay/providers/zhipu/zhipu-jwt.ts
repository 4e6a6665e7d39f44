import { createHmac } from 'node:crypto';

/** How long a JWT is valid (one-api: 24 h); one is made again an hour before it ends. */
const LIFETIME_MS = 24 * 3600 * 1000;
const RENEW_MARGIN_MS = 3600 * 1000;
const MAX_ENTRIES = 10_000;

const cache = new Map<string, { readonly jwt: string; readonly expiresAt: number }>();

const base64url = (value: string | Buffer): string => Buffer.from(value).toString('base64url');

/** The key `id.secret` split at its first dot; undefined for a key that is not one (sent as it is). */
export const zhipuCredentials = (key: string): { id: string; secret: string } | undefined => {
  const dot = key.indexOf('.');
  if (dot <= 0 || dot === key.length - 1) return undefined;
  return { id: key.slice(0, dot), secret: key.slice(dot + 1) };
};

/**
 * Zhipu's JWT as one-api makes it: HS256 signed with the key's secret, header
 * `{alg: HS256, sign_type: SIGN, typ: JWT}`, claims `api_key` (the key's id), `exp` and `timestamp`
 * in milliseconds. Cached per key until an hour before it expires (made locally: no fetch).
 */
export const zhipuJwt = (key: string, now: number = Date.now()): string | undefined => {
  const credentials = zhipuCredentials(key);
  if (!credentials) return undefined;
  const cached = cache.get(key);
  if (cached && cached.expiresAt - RENEW_MARGIN_MS > now) return cached.jwt;
  const header = base64url(JSON.stringify({ alg: 'HS256', sign_type: 'SIGN', typ: 'JWT' }));
  const payload = base64url(
    JSON.stringify({ api_key: credentials.id, exp: now + LIFETIME_MS, timestamp: now }),
  );
  const signature = createHmac('sha256', credentials.secret)
    .update(`${header}.${payload}`)
    .digest('base64url');
  const jwt = `${header}.${payload}.${signature}`;
  if (cache.size >= MAX_ENTRIES) cache.clear();
  cache.set(key, { jwt, expiresAt: now + LIFETIME_MS });
  return jwt;
};
