import { relayError } from '../../../lib/app-error.js';
import type { ChannelMeta } from '../adaptor.js';

/** A Bedrock channel's credentials: an access key pair (SigV4), or a Bedrock API key (Bearer). */
export type BedrockCredentials =
  | {
      readonly kind: 'sigv4';
      readonly accessKeyId: string;
      readonly secretAccessKey: string;
      readonly sessionToken?: string;
      readonly region: string;
    }
  | { readonly kind: 'api-key'; readonly apiKey: string; readonly region: string };

const DEFAULT_REGION = 'us-east-1';

/**
 * The channel's credentials, as one-api stores them: `config.ak`, `config.sk`, `config.region`
 * (what one-api reads), else the key `ak|sk|region` (what its console composes; a fourth part is a
 * session token). A key without `|` is a Bedrock API key, sent as a Bearer token
 * (region from `config.region`, else us-east-1).
 */
export const bedrockCredentials = (channel: ChannelMeta): BedrockCredentials => {
  const config = channel.config;
  const ak = config['ak']?.trim() ?? '';
  const sk = config['sk']?.trim() ?? '';
  const configRegion = config['region']?.trim() ?? '';
  if (ak !== '' && sk !== '')
    return { kind: 'sigv4', accessKeyId: ak, secretAccessKey: sk, region: configRegion || DEFAULT_REGION };
  const key = channel.key.trim();
  if (!key.includes('|')) {
    if (key === '')
      throw relayError(
        401,
        'invalid_channel_credentials',
        'the channel has no AWS credentials',
        'upstream_error',
      );
    return { kind: 'api-key', apiKey: key, region: configRegion || DEFAULT_REGION };
  }
  const [accessKeyId = '', secretAccessKey = '', region = '', sessionToken = ''] = key
    .split('|')
    .map((part) => part.trim());
  if (accessKeyId === '' || secretAccessKey === '')
    throw relayError(
      401,
      'invalid_channel_credentials',
      "the channel's key is not an AWS access key pair (ak|sk|region)",
      'upstream_error',
    );
  return {
    kind: 'sigv4',
    accessKeyId,
    secretAccessKey,
    region: region || configRegion || DEFAULT_REGION,
    ...(sessionToken ? { sessionToken } : {}),
  };
};

/** The channel's base URL, else Bedrock's runtime endpoint in the credentials' region. */
export const bedrockBaseUrl = (channel: ChannelMeta, region: string): string => {
  if (channel.baseUrl) return channel.baseUrl;
  if (!/^[a-z0-9-]{1,32}$/.test(region))
    throw relayError(
      400,
      'invalid_channel_region',
      `the channel's AWS region is not one: ${region}`,
      'upstream_error',
    );
  return `https://bedrock-runtime.${region}.amazonaws.com`;
};
