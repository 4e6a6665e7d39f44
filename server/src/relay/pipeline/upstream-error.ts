import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { AppError, relayError } from '../../lib/app-error.js';
import type { Adaptor, ChannelMeta, UpstreamErrorInfo } from '../providers/adaptor.js';
import { parseJson } from '@sluice/contract/parse-json';

/**
 * Statuses worth trying another channel for, as one-api: every failure but a 400, which is about the
 * request itself. A 401, 403 or 404 is about the channel (its key, its account, a model or deployment
 * it lacks), which another channel may not share.
 */
export const isRetryableStatus = (status: number): boolean =>
  status !== 400 && (status < 200 || status > 299);

/** Access tokens fetched for a channel's calls (Baidu's, Vertex AI's…), the latest few, by channel. */
const fetchedTokens = new WeakMap<ChannelMeta, string[]>();
const TOKENS_KEPT = 4;

/** Remembers an access token the channel's calls carry, so that no answer or error passes it on. */
export const rememberToken = (channel: ChannelMeta, token: string): void => {
  if (token.length < 6) return;
  const tokens = fetchedTokens.get(channel) ?? [];
  if (tokens.includes(token)) return;
  tokens.push(token);
  if (tokens.length > TOKENS_KEPT) tokens.shift();
  fetchedTokens.set(channel, tokens);
};

/** Removes the channel's key, its fetched access tokens and base URL from anything passed on to the client. */
export const scrub = (text: string, channel: ChannelMeta): string => {
  let out = text;
  const secrets = [channel.key, ...channel.key.split(/[|\n]/), ...(fetchedTokens.get(channel) ?? [])];
  for (const secret of secrets.filter((part) => part.length >= 6)) out = out.split(secret).join('[redacted]');
  if (channel.baseUrl) out = out.split(channel.baseUrl).join('[upstream]');
  return out;
};

/** An upstream failure as the client sees it: the upstream status, OpenAI's error shape. */
export const upstreamError = (
  status: number,
  raw: string,
  adaptor: Adaptor,
  channel: ChannelMeta,
): AppError => {
  const info = adaptor.parseError(parseJson(raw));
  // Every field the provider wrote is scrubbed: a proxy may quote the key in any of them.
  return new AppError(
    scrub(info?.code || 'bad_response_status_code', channel),
    scrub(info?.message ?? `bad response status code ${status}`, channel),
    status,
    scrub(info?.type || 'upstream_error', channel),
    scrub(info?.param ?? String(status), channel),
  );
};

/**
 * undici's timeouts (connect, first byte, idle between chunks: upstream.ts), and a proxy's, by code
 * or by name.
 */
const isTimeout = (error: unknown): boolean =>
  error instanceof Error &&
  (/^UND_ERR_(CONNECT|HEADERS|BODY)_TIMEOUT$/.test(String((error as { code?: unknown }).code)) ||
    /timeout/i.test(error.name + error.message));

/**
 * A call that failed on the way (refused, reset, timed out, or broken off in the middle of the
 * answer): worth another channel, unless the client itself went away. A timeout is a 504.
 */
export const transportFailure = (error: unknown, clientGone: boolean): Error => {
  if (clientGone) return relayError(499, 'client_closed', 'the client closed the request');
  const timedOut = isTimeout(error);
  return new AttemptFailure(
    relayError(
      timedOut ? 504 : 502,
      'do_request_failed',
      timedOut ? 'the upstream did not answer in time' : 'the upstream could not be reached or broke off',
    ),
    true,
  );
};

/**
 * A 200 stream that did not open (stream/stream-opening.ts: garbage, HTML, an error sent as its
 * first event, an end before any event): a 502, worth another channel. The provider's error, when
 * it sent one, is passed on scrubbed.
 */
export const refusedStream = (
  message: string,
  upstream: UpstreamErrorInfo | undefined,
  channel: ChannelMeta,
): AttemptFailure =>
  new AttemptFailure(
    upstream
      ? scrubbedError(upstream, 502, channel)
      : relayError(502, 'bad_response', message, 'upstream_error'),
    true,
  );

/** The provider's own error at `status`, every field scrubbed (a proxy may quote the key in any of them). */
export const scrubbedError = (info: UpstreamErrorInfo, status: number, channel: ChannelMeta): AppError =>
  new AppError(
    scrub(info.code || 'bad_response', channel),
    scrub(info.message, channel),
    status,
    scrub(info.type || 'upstream_error', channel),
    scrub(info.param ?? '', channel),
  );

export class AttemptFailure extends Error {
  constructor(
    readonly error: AppError,
    readonly retryable: boolean,
    /** False when the failure says nothing of the channel's health (a kind of request it cannot take). */
    readonly channelsFault = true,
    /** True when the channel refused the attempt's key alone and has another enabled key to try. */
    readonly anotherKey = false,
  ) {
    super(error.message);
  }
}

const PROXY_CHANNEL_TYPE: number = CHANNEL_TYPE.proxy;

/** Why a channel cannot take a kind of request; a Proxy channel (43) points at the one route it serves. */
export const unsupportedMessage = (type: number, mode: string): string =>
  type === PROXY_CHANNEL_TYPE
    ? `a Proxy channel (type 43) relays only through /v1/oneapi/proxy/<channel id>/<path>, not ${mode} requests`
    : `channel type ${type} does not support ${mode} requests in Sluice yet`;

/** A channel whose type Sluice cannot relay this kind of request to: the next channel may. */
export const unsupportedChannel = (type: number, mode: string): AttemptFailure =>
  new AttemptFailure(
    relayError(501, 'unsupported_channel_type', unsupportedMessage(type, mode)),
    true,
    false,
  );

/** What the client hears when every channel failed: the last failure (a 429 said as one-api says it). */
export const finalFailure = (failure: AppError | undefined, model: string, group: string): AppError => {
  if (!failure)
    return relayError(503, 'no_channel', `no available channel for model ${model} under group ${group}`);
  if (failure.status !== 429) return failure;
  return relayError(
    429,
    failure.code,
    'upstream load of the current group is saturated, retry later',
    failure.type,
  );
};
