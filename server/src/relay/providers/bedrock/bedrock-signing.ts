import { createHash } from 'node:crypto';
import type { UpstreamRequest } from '../adaptor.js';
import type { BedrockCredentials } from './bedrock-credentials.js';
import { Hash, SignatureV4 } from './bedrock-smithy.js';

/** The SigV4 service name of bedrock-runtime. */
const SERVICE = 'bedrock';
/** Signers kept, one per access key, secret, session token and region; past this all are dropped. */
const MAX_SIGNERS = 256;

type SigV4Credentials = Extract<BedrockCredentials, { kind: 'sigv4' }>;

/** node:crypto's SHA-256 (and HMAC-SHA-256 with a secret), as Smithy's signer takes a hash. */
class NodeSha256 extends Hash {
  constructor(secret?: Parameters<typeof Hash.prototype.update>[0]) {
    super('sha256', secret);
  }
}

const signers = new Map<string, SignatureV4>();

/**
 * The signer of these credentials, made once: Smithy keeps the day's signing key per credentials
 * and region itself, and a signer built per request spent as long again on its own set-up.
 */
const signerOf = (credentials: SigV4Credentials): SignatureV4 => {
  const id = [
    credentials.accessKeyId,
    credentials.secretAccessKey,
    credentials.sessionToken ?? '',
    credentials.region,
  ].join('\n');
  const known = signers.get(id);
  if (known) return known;
  if (signers.size >= MAX_SIGNERS) signers.clear();
  const signer = new SignatureV4({
    credentials: {
      accessKeyId: credentials.accessKeyId,
      secretAccessKey: credentials.secretAccessKey,
      ...(credentials.sessionToken ? { sessionToken: credentials.sessionToken } : {}),
    },
    region: credentials.region,
    service: SERVICE,
    sha256: NodeSha256,
  });
  signers.set(id, signer);
  return signer;
};

/**
 * The request signed with AWS Signature Version 4 by Smithy's signer (the AWS SDK's own): host,
 * x-amz-date, x-amz-content-sha256 (and x-amz-security-token with a session token) added, every
 * header signed, the path's escapes escaped again as AWS wants for every service but S3. The
 * payload's hash is taken here in one call (the signer uses the header when it is set).
 */
export const signBedrockRequest = async (
  request: UpstreamRequest,
  credentials: SigV4Credentials,
  signingDate?: Date,
): Promise<UpstreamRequest> => {
  const url = new URL(request.url);
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = value;
  const signed = await signerOf(credentials).sign(
    {
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query,
      headers: {
        ...request.headers,
        host: url.host,
        'x-amz-content-sha256': createHash('sha256').update(request.body).digest('hex'),
      },
      body: request.body,
    },
    signingDate ? { signingDate } : {},
  );
  // The HTTP client writes Host itself, from the same URL.
  const { host: _host, ...headers } = signed.headers;
  return { url: request.url, headers, body: request.body };
};
