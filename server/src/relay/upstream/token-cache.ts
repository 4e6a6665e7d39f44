import { parseJson } from '@sluice/contract/parse-json';
import { relayError } from '../../lib/app-error.js';
import type { ChannelMeta, IssuedToken, TokenSource, UpstreamRequest } from '../providers/adaptor.js';
import type { UpstreamBody } from './upstream-body.js';

/** A token is fetched again this long before it expires (a request in flight must not outlive it). */
const REFRESH_MARGIN_MS = 60_000;
/** How long a token endpoint may take. */
const FETCH_TIMEOUT_MS = 30_000;
/** At most this many credentials cached (one per channel key in practice). */
const MAX_ENTRIES = 10_000;

interface Entry {
  readonly token: string;
  readonly expiresAt: number;
}

/** The tokens of the providers that need one fetched (adaptor.ts `TokenSource`), cached per credentials. */
export interface TokenCache {
  /**
   * The channel's token: from memory while valid, else fetched once however many calls wait for it
   * (the fetch is not tied to any one client: one that leaves does not fail the others).
   */
  token(source: TokenSource, channel: ChannelMeta): Promise<string>;
}

const isIssued = (value: IssuedToken | { message: string }): value is IssuedToken => 'token' in value;

export const createTokenCache = (
  send: (request: UpstreamRequest, signal: AbortSignal) => Promise<{ status: number; body: UpstreamBody }>,
  now: () => number = Date.now,
): TokenCache => {
  const tokens = new Map<string, Entry>();
  const fetching = new Map<string, Promise<Entry>>();

  const fetchToken = async (source: TokenSource, channel: ChannelMeta) => {
    const response = await send(await source.request(channel), AbortSignal.timeout(FETCH_TIMEOUT_MS));
    const raw = (await response.body.readAll(1024 * 1024)).toString('utf8');
    const read = source.read(response.status, parseJson(raw));
    if (!isIssued(read))
      throw relayError(
        response.status >= 400 ? response.status : 502,
        read.code || 'token_failed',
        `the channel's credentials were refused: ${read.message}`,
        read.type || 'upstream_error',
      );
    const entry = { token: read.token, expiresAt: now() + read.expiresInSeconds * 1000 };
    if (tokens.size >= MAX_ENTRIES) tokens.clear();
    return entry;
  };

  return {
    token: async (source, channel) => {
      if (source.applies?.(channel) === false) return '';
      const key = source.cacheKey(channel);
      const cached = tokens.get(key);
      if (cached && cached.expiresAt - REFRESH_MARGIN_MS > now()) return cached.token;
      let pending = fetching.get(key);
      if (!pending) {
        pending = fetchToken(source, channel).finally(() => fetching.delete(key));
        fetching.set(key, pending);
      }
      const entry = await pending;
      tokens.set(key, entry);
      return entry.token;
    },
  };
};
