import { channelKeysOf, maskedKey } from '@sluice/contract/channel-keys';
import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { parseJson } from '@sluice/contract/parse-json';
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import { AppError } from '../lib/app-error.js';
import { nowSeconds } from '../lib/time.js';
import type { AdaptorSettings, RelayRequestMeta } from '../relay/providers/adaptor.js';
import { providerOf } from '../relay/providers/registry.js';
import { channelMetaOf, mapModel } from '../relay/routing/channel-meta.js';
import { keyIdOf } from '../relay/routing/channel-keys.js';
import type { ChannelRow } from '../relay/routing/relay-index.js';
import type { Upstream } from '../relay/upstream/upstream.js';
import { unsupportedMessage, upstreamError } from '../relay/pipeline/upstream-error.js';
import type { ChannelKeyStates } from './channel-key-states.js';
import { isKeyRefusal } from './disable-rules.js';

export interface ChannelTestResult {
  readonly success: boolean;
  readonly message: string;
  /** Seconds the test took (0 on failure), as the console expects. */
  readonly time: number;
  readonly model: string;
  readonly error?: AppError;
  /** Each key's result, for a channel of several keys (masked: never a key). */
  readonly keys?: readonly KeyTestResult[];
}

export interface KeyTestResult {
  readonly index: number;
  readonly id: string;
  readonly masked: string;
  readonly success: boolean;
  readonly message: string;
  readonly time: number;
}

interface TestDeps {
  db: Kysely<Tables>;
  upstream: Upstream;
  timeoutMs: number;
  adaptorSettings?: AdaptorSettings | undefined;
  /** Where a channel's several keys keep their states: a refused key is disabled, a passing one re-enabled. */
  keyStates?: ChannelKeyStates | undefined;
}

const split = (models: string | null) =>
  (models ?? '')
    .split(',')
    .map((model) => model.trim())
    .filter((model) => model !== '');

/**
 * The model a test uses: the requested one when the channel serves it, else the channel's test model,
 * else gpt-3.5-turbo when served, else the first model of the channel.
 */
export const testModelOf = (row: ChannelRow, requested: string): string => {
  const models = split(row.models);
  if (requested && models.includes(requested)) return requested;
  if (row.test_model && models.includes(row.test_model)) return row.test_model;
  if (models.includes('gpt-3.5-turbo')) return 'gpt-3.5-turbo';
  return models[0] ?? requested ?? 'gpt-3.5-turbo';
};

/**
 * Sends one small chat through the channel's own adaptor; stores response_time and test_time. A
 * channel of several keys tests each: it passes when one key does (its time is the first passing
 * key's), each key's result is in `keys`, and each key's state follows its result (a refusal by
 * isKeyRefusal disables it, a pass re-enables it).
 */
export const testChannel = async (
  deps: TestDeps,
  row: ChannelRow,
  requested: string,
): Promise<ChannelTestResult> => {
  const model = testModelOf(row, requested);
  const record = async (ms: number) => {
    await deps.db
      .updateTable('channels')
      .set({ response_time: ms, test_time: nowSeconds() })
      .where('id', '=', row.id)
      .execute();
  };
  const keys = channelKeysOf(row.type, row.key);
  if (keys.length === 1) {
    const result = await testOnce(deps, row, model, undefined);
    await record(result.error ? 0 : Math.round(result.time * 1000));
    return { ...result, model: requested || model };
  }
  const results: KeyTestResult[] = [];
  let first: ChannelTestResult | undefined;
  let failure: ChannelTestResult | undefined;
  for (const [index, key] of keys.entries()) {
    const result = await testOnce(deps, row, model, key);
    const id = keyIdOf(key);
    results.push({ index, id, masked: maskedKey(key), ...pick(result) });
    if (result.error === undefined) {
      first ??= result;
      await deps.keyStates?.enable(row.id, id);
    } else {
      failure ??= result;
      if (isKeyRefusal(result.error)) await deps.keyStates?.disable(row.id, id, result.message);
    }
  }
  const chosen = first ?? failure ?? { success: false, message: '', time: 0, model };
  await record(first ? Math.round(first.time * 1000) : 0);
  const failed = results.filter((result) => !result.success);
  const message = failed
    .map((result) => `key #${result.index + 1} (${result.masked}): ${result.message}`)
    .join('; ');
  return { ...chosen, message, model: requested || model, keys: results };
};

const pick = (result: ChannelTestResult) => ({
  success: result.success,
  message: result.message,
  time: result.time,
});

/** One test call with the channel's key, or with `key` (one of its several). */
const testOnce = async (
  deps: TestDeps,
  row: ChannelRow,
  model: string,
  key: string | undefined,
): Promise<ChannelTestResult> => {
  const provider = providerOf(row.type);
  const started = performance.now();
  const fail = (error: AppError): ChannelTestResult => ({
    success: false,
    message: error.message,
    time: 0,
    model,
    error,
  });
  const adaptor = provider?.adaptor;
  if (!adaptor || !adaptor.modes.includes('chat'))
    return fail(
      row.type === CHANNEL_TYPE.proxy
        ? new AppError('proxy_channel_only', unsupportedMessage(row.type, 'chat'), 501)
        : new AppError(
            'unsupported_channel_type',
            `channel type ${row.type} cannot be tested by Sluice yet`,
            501,
          ),
    );
  const shared = channelMetaOf(row, provider);
  const channel = key === undefined ? shared : { ...shared, key };
  const meta: RelayRequestMeta = {
    mode: 'chat',
    path: '/v1/chat/completions',
    model: mapModel(row, model),
    stream: false,
    channel,
    body: {},
    clientHeaders: {},
    settings: deps.adaptorSettings,
  };
  try {
    // A provider that needs an access token first (adaptor.ts TokenSource) gets it as the relay does.
    const token = adaptor.token ? await deps.upstream.token(adaptor.token, channel) : undefined;
    const built = adaptor.buildRequest(
      { model: meta.model, max_tokens: 2, messages: [{ role: 'user', content: 'hi' }] },
      token === undefined ? meta : { ...meta, token },
    );
    const request = adaptor.sign ? await adaptor.sign(built, meta) : built;
    const response = await deps.upstream.send(request, AbortSignal.timeout(deps.timeoutMs));
    const raw = (await response.body.readAll(4 * 1024 * 1024)).toString('utf8');
    if (response.status < 200 || response.status > 299)
      return fail(upstreamError(response.status, raw, adaptor, channel));
    const body = parseJson(raw);
    const parsed =
      body === undefined && adaptor.gatherStream
        ? adaptor.gatherStream(raw, meta)
        : adaptor.parseResponse(JSON.parse(raw) as unknown, meta);
    if (!parsed.usage && !parsed.text) return fail(new AppError('bad_response', 'usage is nil', 500));
  } catch (error) {
    return fail(
      error instanceof AppError
        ? error
        : new AppError('do_request_failed', `the upstream could not be reached or answered badly`, 502),
    );
  }
  const elapsed = performance.now() - started;
  return { success: true, message: '', time: Number((elapsed / 1000).toFixed(3)), model };
};
