import { randomBytes, randomInt, randomUUID } from 'node:crypto';

const ALPHANUMERIC = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** `length` characters drawn uniformly from [0-9a-zA-Z]. */
export const randomAlphanumeric = (length: number): string => {
  let out = '';
  for (let index = 0; index < length; index += 1) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
};

/** 32 lowercase hex characters (a UUID without dashes): access tokens, redemption keys. */
export const uuidHex = (): string => randomUUID().replaceAll('-', '');

/**
 * A 48-character token key (stored without `sk-`): 16 random alphanumerics, then the 32 hex
 * characters of a fresh UUID with every letter at an even index upper-cased (one-api's layout).
 */
export const generateTokenKey = (): string => {
  const hex = [...uuidHex()].map((char, index) => (index % 2 === 0 ? char.toUpperCase() : char)).join('');
  return randomAlphanumeric(16) + hex;
};

export const generateAffCode = (): string => randomAlphanumeric(4);

/** A session id: 256 random bits, url-safe. */
export const generateSessionId = (): string => randomBytes(32).toString('base64url');
