import type { UpstreamRequest } from '../adaptor.js';
import type { BedrockCredentials } from './bedrock-credentials.js';
import { Hash, SignatureV4 } from './bedrock-smithy.js';

/** The SigV4 service name of bedrock-runtime. */
const SERVICE = 'bedrock';

type SigV4Credentials = Extract<BedrockCredentials, { kind: 'sigv4' }>;

/** node:crypto's SHA-256 (and HMAC-SHA-256 with a secret), as Smithy's signer takes a hash. */
class NodeSha256 extends Hash {
  constructor(secret?: Parameters<typeof Hash.prototype.update>[0]) {
    super('sha256', secret);
  }
}

/**
 * The request signed with AWS Signature Version 4 by Smithy's signer (the AWS SDK's own): host,
 * x-amz-date, x-amz-content-sha256 (and x-amz-security-token with a session token) added, every
 * header signed, the path's escapes escaped again as AWS wants for every service but S3.
 */
export const signBedrockRequest = async (
  request: UpstreamRequest,
  credentials: SigV4Credentials,
  signingDate?: Date,
): Promise<UpstreamRequest> => {
  const url = new URL(request.url);
  // Smithy keeps the day's signing key per credentials and region itself (one HMAC a request).
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
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = value;
  const signed = await signer.sign(
    {
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query,
      headers: { ...request.headers, host: url.host },
      body: request.body,
    },
    signingDate ? { signingDate } : {},
  );
  // The HTTP client writes Host itself, from the same URL.
  const { host: _host, ...headers } = signed.headers;
  return { url: request.url, headers, body: request.body };
};
