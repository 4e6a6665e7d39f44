import { parseJson } from '@sluice/contract/parse-json';
import { z } from 'zod';
import { relayError } from '../../../lib/app-error.js';
import type { ChannelMeta } from '../adaptor.js';

/** Where a service account's JWT grant goes when its JSON names no `token_uri`. */
export const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';

/** What Sluice reads of a service-account key file (the JSON `gcloud iam service-accounts keys create` writes). */
const serviceAccountSchema = z.looseObject({
  type: z.string().optional(),
  project_id: z.string().optional(),
  private_key_id: z.string().optional(),
  private_key: z.string().min(1),
  client_email: z.string().min(1),
  token_uri: z.string().optional(),
});

export interface ServiceAccount {
  readonly clientEmail: string;
  readonly privateKey: string;
  readonly privateKeyId: string;
  /** The JSON's `token_uri` (Google's token endpoint unless the file names another). */
  readonly tokenUri: string;
  readonly projectId: string;
}

/** A Vertex AI channel as its calls need it. */
export interface VertexChannel {
  readonly region: string;
  readonly projectId: string;
  readonly account: ServiceAccount;
  /** What the relay caches the channel's token by: the channel and its service account, no secret. */
  readonly cacheKey: string;
}

const invalid = (message: string) =>
  relayError(401, 'invalid_channel_credentials', `the Vertex AI channel's ${message}`, 'upstream_error');

/**
 * The service account of `config.vertex_ai_adc`. A bad one is an error naming the field that is
 * wrong, never quoting the JSON (JSON.parse's message would quote the private key).
 */
export const parseServiceAccount = (text: string): ServiceAccount => {
  if (text.trim() === '') throw invalid('config.vertex_ai_adc (the service account JSON) is empty');
  const json = parseJson(text);
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw invalid('config.vertex_ai_adc is not a service account JSON object');
  const parsed = serviceAccountSchema.safeParse(json);
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join('.')))];
    throw invalid(`config.vertex_ai_adc lacks ${fields.join(', ')} (a string, not empty)`);
  }
  const account = parsed.data;
  if (!account.private_key.includes('PRIVATE KEY'))
    throw invalid('config.vertex_ai_adc: private_key is not a PEM private key');
  const tokenUri = account.token_uri?.trim() || GOOGLE_TOKEN_URI;
  if (!/^https?:\/\/[^/\s]+/.test(tokenUri))
    throw invalid('config.vertex_ai_adc: token_uri is not an http(s) URL');
  return {
    clientEmail: account.client_email,
    // A key pasted through one JSON layer too many keeps its line ends as `\n` text: made lines again.
    privateKey: account.private_key.replaceAll('\\n', '\n'),
    privateKeyId: account.private_key_id ?? '',
    tokenUri,
    projectId: account.project_id ?? '',
  };
};

/** A region as Google names them (us-central1, europe-west4, global, us, eu). */
const REGION = /^[a-z][a-z0-9-]{1,40}$/;

const readChannel = (channel: ChannelMeta): VertexChannel => {
  // one-api reads the config; its console also composes the key as region|project id|ADC JSON.
  const key = channel.key.trim();
  const bar = key.indexOf('|');
  const second = bar === -1 ? -1 : key.indexOf('|', bar + 1);
  const fromKey =
    second === -1
      ? { region: '', projectId: '', adc: key.startsWith('{') ? key : '' }
      : { region: key.slice(0, bar), projectId: key.slice(bar + 1, second), adc: key.slice(second + 1) };
  const config = channel.config;
  const account = parseServiceAccount(config['vertex_ai_adc'] || fromKey.adc);
  const region = (config['region'] || fromKey.region).trim();
  if (region === '') throw invalid('config.region is empty (e.g. us-central1, us-east5 or global)');
  if (!REGION.test(region))
    throw invalid('config.region is not a region name (e.g. us-central1, us-east5 or global)');
  const projectId = (config['vertex_ai_project_id'] || fromKey.projectId || account.projectId).trim();
  if (projectId === '') throw invalid('config.vertex_ai_project_id is empty');
  const cacheKey = `vertex:${channel.id}:${account.clientEmail}:${account.privateKeyId}:${account.tokenUri}`;
  return { region, projectId, account, cacheKey };
};

/** Read once per channel meta (the relay keeps one per channel row): a bad config is remembered too. */
const known = new WeakMap<ChannelMeta, VertexChannel | Error>();

/** The channel's region, project and service account; throws a clear error naming a bad field. */
export const vertexChannelOf = (channel: ChannelMeta): VertexChannel => {
  let read = known.get(channel);
  if (!read) {
    try {
      read = readChannel(channel);
    } catch (error) {
      read = error instanceof Error ? error : invalid('config could not be read');
    }
    known.set(channel, read);
  }
  if (read instanceof Error) throw read;
  return read;
};

/**
 * The host a region's calls go to: `aiplatform.googleapis.com` for the global endpoint, the
 * multi-region hosts for `us` and `eu`, else `<region>-aiplatform.googleapis.com`.
 */
export const vertexHostOf = (region: string): string => {
  if (region === 'global') return 'https://aiplatform.googleapis.com';
  if (region === 'us' || region === 'eu') return `https://aiplatform.${region}.rep.googleapis.com`;
  return `https://${region}-aiplatform.googleapis.com`;
};
