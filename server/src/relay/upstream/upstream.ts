import type { EventEmitter } from 'node:events';
import { Agent, ProxyAgent, errors, type Dispatcher } from 'undici';
import type { ChannelMeta, TokenSource, UpstreamRequest } from '../providers/adaptor.js';
import { UpstreamBody } from './upstream-body.js';
import { parseJson } from '@sluice/contract/parse-json';
import { createTokenCache } from './token-cache.js';
import { openWebSocket } from './websocket-upstream.js';
import { createChannelTimeouts } from './channel-timeouts.js';
import { CallDeadlines, type Watched } from './call-deadlines.js';
import type { UpstreamTimeouts } from './upstream-timeout.js';

export type { UpstreamTimeouts } from './upstream-timeout.js';

export interface UpstreamResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: UpstreamBody;
}

/** An AbortSignal, or an EventEmitter with `aborted` and an 'abort' event (the relay's ClientLink). */
export type ClientSignal = AbortSignal | (EventEmitter & { readonly aborted: boolean });

/** First value of each header, names lower-cased (as undici parses them). */
const flatHeaders = (headers: Record<string, string | string[] | undefined>): Record<string, string> => {
  const flat: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (typeof value === 'string') flat[name] = value;
    else if (Array.isArray(value) && value[0] !== undefined) flat[name] = value[0];
  }
  return flat;
};

/**
 * One upstream call on undici's dispatch callbacks: the answer is resolved at its headers, its body
 * fed to an UpstreamBody. Lighter than undici's request(), which wraps every call in an async
 * resource and a Readable body. The client's signal aborts the call at any point. Its first-byte and
 * idle timeouts are watched by the upstream's CallDeadlines (undici's own are off): from the request
 * on its connection to its headers, then between two chunks of its body while its reader reads.
 */
class UpstreamCall implements Dispatcher.DispatchHandler, Watched {
  #controller: Dispatcher.DispatchController | undefined;
  #body: UpstreamBody | undefined;
  #aborted: Error | undefined;
  readonly #signal: ClientSignal;
  readonly #resolve: (response: UpstreamResponse) => void;
  readonly #reject: (error: Error) => void;
  readonly #deadlines: CallDeadlines;
  readonly #limits: UpstreamTimeouts;
  deadlineAt = 0;
  prevWatched: Watched | undefined = undefined;
  nextWatched: Watched | undefined = undefined;
  watched = false;

  constructor(
    signal: ClientSignal,
    resolve: (response: UpstreamResponse) => void,
    reject: (error: Error) => void,
    deadlines: CallDeadlines,
    limits: UpstreamTimeouts,
  ) {
    this.#deadlines = deadlines;
    this.#limits = limits;
    this.#signal = signal;
    this.#resolve = resolve;
    this.#reject = reject;
    if (signal.aborted) this.#aborted = new errors.RequestAbortedError();
    else if ('addEventListener' in signal) signal.addEventListener('abort', this.#onAbort);
    else signal.on('abort', this.#onAbort);
  }

  #onAbort = (): void => {
    this.#aborted = new errors.RequestAbortedError();
    this.#controller?.abort(this.#aborted);
  };

  /** A deadline passed: undici fails the call with the timeout's own error (its code says which). */
  expired(): void {
    const controller = this.#controller;
    if (!controller) return;
    if (!this.#body) controller.abort(new errors.HeadersTimeoutError());
    // A body its reader paused is not the upstream's silence: watched again from now.
    else if (controller.paused) this.#deadlines.watch(this, this.#limits.idleMs);
    else controller.abort(new errors.BodyTimeoutError());
  }

  #settled(): void {
    this.#deadlines.release(this);
    const signal = this.#signal;
    if ('removeEventListener' in signal) signal.removeEventListener('abort', this.#onAbort);
    else signal.off('abort', this.#onAbort);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#aborted) controller.abort(this.#aborted);
    else this.#deadlines.watch(this, this.#limits.firstByteMs);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode < 200 || this.#body) return;
    this.#body = new UpstreamBody(controller);
    this.#deadlines.watch(this, this.#limits.idleMs);
    this.#resolve({ status: statusCode, headers: flatHeaders(headers), body: this.#body });
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.watched) this.#deadlines.watch(this, this.#limits.idleMs);
    this.#body?.push(chunk);
  }

  onResponseEnd(): void {
    this.#settled();
    this.#body?.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#settled();
    if (this.#body) this.#body.fail(error);
    else this.#reject(error);
  }
}

/**
 * The defaults when RELAY_TIMEOUT is not set. Connect: 10 s, as undici's own default (a provider
 * that cannot take a connection in 10 s is down; the next channel gets the request). First byte:
 * 600 s, because a non-streamed request to a reasoning model (o1-pro, o3, Claude or Gemini thinking
 * at length) gets its headers only with the whole answer, after minutes; 600 s is the default
 * timeout of OpenAI's and Anthropic's own SDKs, so Sluice never gives up before a client using
 * them would. Idle: 300 s between two chunks of a body (undici's default): a stream can be silent
 * while the model thinks before its first token, never for that long once it writes.
 */
export const DEFAULT_UPSTREAM_TIMEOUTS: UpstreamTimeouts = {
  connectMs: 10_000,
  firstByteMs: 600_000,
  idleMs: 300_000,
};

/** The global default of each step, in seconds (0 = not set): RELAY_CONNECT_TIMEOUT and its kin. */
export interface StepSeconds {
  readonly connectSeconds?: number;
  readonly firstByteSeconds?: number;
  readonly idleSeconds?: number;
}

const millis = (seconds: number): number => Math.max(1, Math.round(seconds * 1000));

/**
 * The timeouts for one-api's RELAY_TIMEOUT (seconds; 0 = unset, the defaults): when set it is the
 * call's timeout, so the first byte's and every chunk's, and caps the connect timeout. A step's own
 * default (RELAY_CONNECT_TIMEOUT, RELAY_FIRST_BYTE_TIMEOUT, RELAY_IDLE_TIMEOUT) wins over both.
 */
export const upstreamTimeouts = (
  relayTimeoutSeconds: number,
  defaults: UpstreamTimeouts = DEFAULT_UPSTREAM_TIMEOUTS,
  steps: StepSeconds = {},
): UpstreamTimeouts => {
  const timeout = relayTimeoutSeconds > 0 ? millis(relayTimeoutSeconds) : undefined;
  const base: UpstreamTimeouts = timeout
    ? { connectMs: Math.min(defaults.connectMs, timeout), firstByteMs: timeout, idleMs: timeout }
    : defaults;
  const step = (seconds: number | undefined, fallback: number) =>
    seconds !== undefined && seconds > 0 ? millis(seconds) : fallback;
  if (!steps.connectSeconds && !steps.firstByteSeconds && !steps.idleSeconds) return base;
  return {
    connectMs: step(steps.connectSeconds, base.connectMs),
    firstByteMs: step(steps.firstByteSeconds, base.firstByteMs),
    idleMs: step(steps.idleSeconds, base.idleMs),
  };
};

/**
 * One keep-alive connection pool for every upstream call. `timeouts` is RELAY_TIMEOUT in seconds
 * (upstreamTimeouts: 0 = the defaults) or the timeouts themselves (tests give short ones): the
 * defaults of every call; a channel's own (its `config`, channel-timeouts.ts) replace them for its
 * calls. A call that times out fails with undici's ConnectTimeoutError, HeadersTimeoutError or
 * BodyTimeoutError. With RELAY_PROXY every call goes through that proxy: http:// targets as
 * forward-proxy requests, https:// ones through a CONNECT tunnel; socks5:// proxies are spoken to as
 * such.
 */
export const createUpstream = (timeouts: number | Partial<UpstreamTimeouts> = 0, proxyUrl = '') => {
  const defaults: UpstreamTimeouts =
    typeof timeouts === 'number' ? upstreamTimeouts(timeouts) : { ...DEFAULT_UPSTREAM_TIMEOUTS, ...timeouts };
  const { connectMs } = defaults;
  const pool = {
    keepAliveTimeout: 30_000,
    connections: 512,
    // The first byte and the silences are watched by `deadlines`, not by undici's timers.
    headersTimeout: 0,
    bodyTimeout: 0,
  };
  const deadlines = new CallDeadlines();
  // The connect timeout belongs to an agent's connector: one agent per connect timeout in use (the
  // default's, and one per other value channels set; a handful at most).
  const agents = new Map<number, Dispatcher>();
  const agentFor = (connect: number): Dispatcher => {
    let found = agents.get(connect);
    if (!found) {
      found =
        proxyUrl === ''
          ? new Agent({ ...pool, connect: { timeout: connect } })
          : new ProxyAgent({ ...pool, uri: proxyUrl, proxyTunnel: false, connect: { timeout: connect } });
      agents.set(connect, found);
    }
    return found;
  };
  const agent = agentFor(connectMs);
  const channelTimeouts = createChannelTimeouts(defaults);

  // Origin and path of each upstream URL, parsed once (undici parses a URL on every call).
  const targets = new Map<string, { readonly origin: string; readonly path: string }>();
  const targetOf = (url: string) => {
    let target = targets.get(url);
    if (!target) {
      const parsed = new URL(url);
      target = { origin: parsed.origin, path: parsed.pathname + parsed.search };
      if (targets.size >= 1000) targets.clear();
      targets.set(url, target);
    }
    return target;
  };

  const call = (
    method: Dispatcher.HttpMethod,
    url: string,
    headers: Record<string, string>,
    body: string | Uint8Array | null,
    signal: ClientSignal,
    limits: UpstreamTimeouts = defaults,
  ): Promise<UpstreamResponse> => {
    const { origin, path } = targetOf(url);
    const dispatcher = limits.connectMs === connectMs ? agent : agentFor(limits.connectMs);
    return new Promise((resolve, reject) => {
      // undici's timeouts off on each call too: a proxy's own pools (socks5, http targets) do not
      // take the agent's options.
      dispatcher.dispatch(
        { origin, path, method, headers, body, headersTimeout: 0, bodyTimeout: 0 },
        new UpstreamCall(signal, resolve, reject, deadlines, limits),
      );
    });
  };

  /**
   * A relay call: resolves at the answer's headers; its body is read by the caller. `limits` are
   * the channel's timeouts (`timeoutsOf`), the defaults without.
   */
  const send = (
    upstream: UpstreamRequest,
    signal: ClientSignal,
    limits: UpstreamTimeouts = defaults,
  ): Promise<UpstreamResponse> =>
    upstream.url.startsWith('ws')
      ? openWebSocket(upstream, signal, limits, agentFor(limits.connectMs))
      : call('POST', upstream.url, upstream.headers, upstream.body, signal, limits);

  /** A small JSON GET (balances): the status and the parsed body (undefined when not JSON). */
  const get = async (
    url: string,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<{ status: number; json: unknown }> => {
    const response = await call('GET', url, headers, null, signal);
    const text = (await response.body.readAll(1024 * 1024)).toString('utf8');
    return { status: response.status, json: parseJson(text) };
  };

  const tokens = createTokenCache(send);
  return {
    /** The default timeouts (an asynchronous task's polling is bounded by `firstByteMs`). */
    timeouts: defaults,
    /** A channel's timeouts: its `config`'s, each in place of the default (channel-timeouts.ts). */
    timeoutsOf: channelTimeouts,
    call,
    send,
    get,
    token: (source: TokenSource, channel: ChannelMeta) => tokens.token(source, channel),
    close: async () => {
      deadlines.close();
      await Promise.all([...agents.values()].map((each) => each.close()));
    },
  };
};

export type Upstream = ReturnType<typeof createUpstream>;
