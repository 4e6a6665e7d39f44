import { createHash } from 'node:crypto';
import aws4 from 'aws4';
import type { UpstreamRequest } from '../adaptor.js';
import type { BedrockCredentials } from './bedrock-credentials.js';

/** The SigV4 service name of bedrock-runtime. */
const SERVICE = 'bedrock';

type SigV4Credentials = Extract<BedrockCredentials, { kind: 'sigv4' }>;

/** `20240501T120000Z`: the x-amz-date of an instant. */
const amzDate = (date: Date): string =>
  date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

/**
 * The request signed with AWS Signature Version 4 by `aws4` (synchronous, node:crypto, the day's
 * signing key kept per secret, region and service): host, x-amz-date, x-amz-content-sha256 (and
 * x-amz-security-token with a session token) signed with every other header, each segment of the
 * path escaped again as AWS wants for every service but S3. Smithy's signer did the same in twice
 * the time (its promises and hash wrappers), on every request of a Bedrock channel. Header names
 * come back in lower case; Host is left to the HTTP client, which writes it from the same URL.
 */
export const signBedrockRequest = (
  request: UpstreamRequest,
  credentials: SigV4Credentials,
  signingDate = new Date(),
): Promise<UpstreamRequest> => {
  const url = new URL(request.url);
  const body =
    typeof request.body === 'string'
      ? request.body
      : Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength);
  const datetime = amzDate(signingDate);
  const signer = new aws4.RequestSigner(
    {
      method: 'POST',
      host: url.host,
      path: `${url.pathname}${url.search}`,
      service: SERVICE,
      region: credentials.region,
      // Only these headers and Host are signed (aws4 would add and sign Content-Length too).
      doNotModifyHeaders: true,
      headers: {
        ...request.headers,
        'x-amz-content-sha256': createHash('sha256').update(body).digest('hex'),
        'x-amz-date': datetime,
        ...(credentials.sessionToken ? { 'x-amz-security-token': credentials.sessionToken } : {}),
      },
      body,
    },
    {
      accessKeyId: credentials.accessKeyId,
      secretAccessKey: credentials.secretAccessKey,
      ...(credentials.sessionToken ? { sessionToken: credentials.sessionToken } : {}),
    },
  );
  // The instant signed is the x-amz-date sent (aws4 reads the header only when it may add headers).
  signer.datetime = datetime;
  const signed = signer.sign();
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers ?? {}))
    if (value !== undefined && name.toLowerCase() !== 'host') headers[name.toLowerCase()] = String(value);
  return Promise.resolve({ url: request.url, headers, body: request.body });
};
