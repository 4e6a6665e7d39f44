import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** A request as a server receives it: the raw path (with its query), lower-case headers, the body. */
export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer | string;
}

export type SigV4Verdict =
  | { readonly ok: true; readonly accessKeyId: string; readonly region: string; readonly service: string }
  | { readonly ok: false; readonly reason: string };

const sha256Hex = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data).digest();
/** RFC 3986 escaping, as SigV4 wants it (encodeURIComponent leaves !'()* alone). */
const escape = (text: string): string =>
  encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);

const headerValue = (value: string | string[] | undefined): string =>
  (Array.isArray(value) ? value.join(',') : (value ?? '')).trim().replace(/\s+/g, ' ');

/**
 * Verifies an AWS Signature Version 4 `Authorization` header the way AWS does, written from AWS's
 * documentation with node:crypto (independent of the signer under test): the canonical request
 * (the path's segments escaped again, as for every service but S3; the query sorted; the signed
 * headers; the body's hash, which x-amz-content-sha256 must match when sent), the string to sign,
 * the key derived from the secret, and the signature compared in constant time.
 */
export const verifySigV4 = (request: ReceivedRequest, secretAccessKey: string): SigV4Verdict => {
  const authorization = headerValue(request.headers['authorization']);
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(
      authorization,
    );
  if (!match) return { ok: false, reason: 'no SigV4 Authorization header' };
  const [, accessKeyId = '', date = '', region = '', service = '', signedList = '', signature = ''] = match;
  const amzDate = headerValue(request.headers['x-amz-date']);
  if (!amzDate.startsWith(date)) return { ok: false, reason: 'x-amz-date does not match the scope' };
  const signed = signedList.split(';');
  if (!signed.includes('host')) return { ok: false, reason: 'host is not signed' };
  const payloadHash = sha256Hex(request.body);
  const claimed = request.headers['x-amz-content-sha256'];
  if (claimed !== undefined && headerValue(claimed) !== payloadHash)
    return { ok: false, reason: 'x-amz-content-sha256 is not the body’s hash' };
  const [rawPath = '/', rawQuery = ''] = request.path.split('?', 2);
  const uri = rawPath.split('/').map(escape).join('/');
  const query = rawQuery
    .split('&')
    .filter(Boolean)
    .map((pair) => pair.split('=', 2).map((part) => escape(decodeURIComponent(part))) as [string, string?])
    .sort(([a, x = ''], [b, y = '']) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1))
    .map(([name, value = '']) => `${name}=${value}`)
    .join('&');
  const headers = signed.map((name) => `${name}:${headerValue(request.headers[name])}\n`).join('');
  const canonical = [request.method, uri, query, headers, signedList, payloadHash].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date), region), service), 'aws4_request');
  const expected = createHmac('sha256', key).update(toSign).digest();
  const given = Buffer.from(signature, 'hex');
  return expected.length === given.length && timingSafeEqual(expected, given)
    ? { ok: true, accessKeyId, region, service }
    : { ok: false, reason: 'the signature does not match' };
};
