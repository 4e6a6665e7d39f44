import { z } from 'zod';

/** The parsers of the environment's values (`env.ts` gives each variable one): strings in, typed values out. */
export const bool = z
  .string()
  .trim()
  .toLowerCase()
  .refine((value) => ['true', 'false', '1', '0', 'yes', 'no', ''].includes(value), 'must be true or false')
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

export const nonNegativeInt = z
  .string()
  .trim()
  .regex(/^\d+$/, 'must be a whole number ≥ 0')
  .transform(Number)
  .refine(Number.isSafeInteger, 'is too large');

export const fraction = z
  .string()
  .trim()
  .regex(/^(0|1)?(\.\d+)?$/, 'must be a number from 0 to 1')
  .refine((value) => value !== '' && value !== '.', 'must be a number from 0 to 1')
  .transform(Number)
  .refine((value) => value >= 0 && value <= 1, 'must be a number from 0 to 1');

/**
 * Seconds, whole or with a fraction (`0.5`), up to what a timer can wait (2³¹ - 1 ms). one-api's
 * RELAY_TIMEOUT is whole seconds; a fraction is accepted too (tests wait 200 ms, not seconds).
 */
export const seconds = z
  .string()
  .trim()
  .regex(/^(\d+(\.\d{0,3})?|\.\d{1,3})$/, 'must be a number of seconds ≥ 0 (at most 3 decimals)')
  .transform(Number)
  .refine((value) => value * 1000 <= 2_147_483_647, 'is too large (at most 2147483 seconds)');

export const port = nonNegativeInt.refine(
  (value) => value >= 1 && value <= 65535,
  'must be a port number 1-65535',
);

export const sqlDsn = z
  .string()
  .trim()
  .refine(
    (value) =>
      value === '' ||
      /^postgres(ql)?:\/\//.test(value) ||
      /^mysql:\/\//.test(value) ||
      /^[^:]*?(:.*)?@(tcp|unix)\(.+\)\/[^?]+/.test(value),
    'must be empty (SQLite), postgres://…, mysql://… or user:pass@tcp(host:port)/db',
  );

export const redisUrl = z
  .string()
  .trim()
  .refine(
    (value) => value === '' || /^rediss?:\/\//.test(value) || isHostList(value),
    'must be a redis:// or rediss:// URL (or, with REDIS_MASTER_NAME, the sentinels as host:port,host:port)',
  );

/** `host:port[,host:port…]`: the sentinels of a Redis behind Sentinel. */
export const isHostList = (value: string): boolean =>
  value.split(',').every((part) => /^[^\s:/,]+:\d{1,5}$/.test(part.trim()));

/** The sentinels in REDIS_CONN_STRING's `host:port` list. */
export const sentinelsOf = (list: string): { host: string; port: number }[] =>
  list.split(',').map((part) => {
    const [host = '', port = ''] = part.trim().split(':');
    return { host, port: Number(port) };
  });

export const nodeType = z
  .string()
  .trim()
  .toLowerCase()
  .refine((value) => ['', 'master', 'slave'].includes(value), 'must be master or slave')
  .transform((value): 'master' | 'slave' => (value === 'slave' ? 'slave' : 'master'));

export const accessToken = z
  .string()
  .trim()
  .refine(
    (value) => value === '' || /^[0-9A-Za-z_-]{8,32}$/.test(value),
    'must be 8-32 letters, digits, - or _ (the access_token column holds 32)',
  );

export const rootToken = z
  .string()
  .trim()
  .transform((value) => value.replace(/^sk-/, ''))
  .refine(
    (value) => value === '' || /^[0-9A-Za-z_-]{8,48}$/.test(value),
    'must be 8-48 letters, digits, - or _',
  );

export const httpUrl = z
  .string()
  .trim()
  .refine((value) => /^https?:\/\/[^\s/]+/.test(value), 'must be an http:// or https:// URL')
  .transform((value) => value.replace(/\/+$/, ''));

export const proxyUrl = z
  .string()
  .trim()
  .refine(
    (value) => value === '' || /^(https?|socks5?):\/\/[^\s/]+/.test(value),
    'must be an http://, https:// or socks5:// URL',
  );
