import { createHmac } from 'node:crypto';
import { relayError } from '../../../lib/app-error.js';

/** Spark's WebSocket credentials, from the channel's key `APPID|APISecret|APIKey`. */
export interface SparkCredentials {
  readonly appId: string;
  readonly apiSecret: string;
  readonly apiKey: string;
}

/** `APPID|APISecret|APIKey`, or undefined for a key without `|` (an HTTP API password). */
export const sparkCredentials = (key: string): SparkCredentials | undefined => {
  if (!key.includes('|')) return undefined;
  const [appId = '', apiSecret = '', apiKey = ''] = key.split('|').map((part) => part.trim());
  if (appId === '' || apiSecret === '' || apiKey === '')
    throw relayError(
      401,
      'invalid_channel_key',
      'the iFlytek Spark channel key must be APPID|APISecret|APIKey, or an HTTP API password',
      'upstream_error',
    );
  return { appId, apiSecret, apiKey };
};

/**
 * The signed WebSocket URL: HMAC-SHA256 with the APISecret over `host: …`, `date: …` and the
 * request line `GET <path> HTTP/1.1`; `authorization` (base64 of api_key, algorithm, headers and
 * signature), `date` and `host` in the query.
 */
export const signedSparkUrl = (url: string, credentials: SparkCredentials, date: string): string => {
  const parsed = new URL(url);
  const origin = `host: ${parsed.host}\ndate: ${date}\nGET ${parsed.pathname} HTTP/1.1`;
  const signature = createHmac('sha256', credentials.apiSecret).update(origin).digest('base64');
  const authorization = Buffer.from(
    `api_key="${credentials.apiKey}", algorithm="hmac-sha256", headers="host date request-line", signature="${signature}"`,
  ).toString('base64');
  const query = new URLSearchParams({ authorization, date, host: parsed.host });
  return `${parsed.origin}${parsed.pathname}?${query.toString()}`;
};
