import { createHash, createHmac } from 'node:crypto';
import { relayError } from '../../../lib/app-error.js';

/** A Tencent Cloud API call's credentials, from the channel's key `AppId|SecretId|SecretKey`. */
export interface TencentCredentials {
  readonly appId: string;
  readonly secretId: string;
  readonly secretKey: string;
}

/** Reads `AppId|SecretId|SecretKey` (one-api's form); anything else is the channel's 401. */
export const tencentCredentials = (key: string): TencentCredentials => {
  const parts = key.split('|').map((part) => part.trim());
  const [appId = '', secretId = '', secretKey = ''] = parts;
  if (parts.length !== 3 || secretId === '' || secretKey === '')
    throw relayError(
      401,
      'invalid_channel_key',
      'the Tencent Hunyuan channel key must be AppId|SecretId|SecretKey',
      'upstream_error',
    );
  return { appId, secretId, secretKey };
};

/** What one TC3-HMAC-SHA256 signature covers. */
export interface Tc3Input {
  readonly service: string;
  /** The host the request goes to (lower-case), as the Host header says it. */
  readonly host: string;
  readonly contentType: string;
  /** Seconds since the epoch; the credential's date is its UTC day. */
  readonly timestamp: number;
  readonly payload: string;
}

export const TC3_SIGNED_HEADERS = 'content-type;host';

const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
const hmac = (key: string | Buffer, text: string): Buffer =>
  createHmac('sha256', key).update(text, 'utf8').digest();

/** The UTC day of a timestamp, `YYYY-MM-DD`, as the credential scope names it. */
export const tc3Date = (timestamp: number): string => new Date(timestamp * 1000).toISOString().slice(0, 10);

/**
 * The canonical request of a POST to `/` with no query, signing `content-type` and `host` (as
 * Tencent's own SDKs do): header names and values lower-cased, the payload's SHA-256.
 */
export const tc3CanonicalRequest = (input: Tc3Input): string =>
  [
    'POST',
    '/',
    '',
    `content-type:${input.contentType.toLowerCase()}\nhost:${input.host.toLowerCase()}\n`,
    TC3_SIGNED_HEADERS,
    sha256Hex(input.payload),
  ].join('\n');

/** The string to sign: algorithm, timestamp, credential scope and the canonical request's hash. */
export const tc3StringToSign = (input: Tc3Input): string =>
  [
    'TC3-HMAC-SHA256',
    String(input.timestamp),
    `${tc3Date(input.timestamp)}/${input.service}/tc3_request`,
    sha256Hex(tc3CanonicalRequest(input)),
  ].join('\n');

/** The signature: HMAC-SHA256 chained over date, service and `tc3_request` from `TC3<SecretKey>`. */
export const tc3Signature = (secretKey: string, input: Tc3Input): string => {
  const day = hmac(`TC3${secretKey}`, tc3Date(input.timestamp));
  const service = hmac(day, input.service);
  const signing = hmac(service, 'tc3_request');
  return createHmac('sha256', signing).update(tc3StringToSign(input), 'utf8').digest('hex');
};

/** The Authorization header's value. */
export const tencentAuthorization = (credentials: TencentCredentials, input: Tc3Input): string =>
  `TC3-HMAC-SHA256 Credential=${credentials.secretId}/${tc3Date(input.timestamp)}/${input.service}/tc3_request, ` +
  `SignedHeaders=${TC3_SIGNED_HEADERS}, Signature=${tc3Signature(credentials.secretKey, input)}`;
