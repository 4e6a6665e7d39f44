import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { parseJson } from '@sluice/contract/parse-json';
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import { AppError } from '../lib/app-error.js';
import { nowSeconds } from '../lib/time.js';
import type { AdaptorSettings, RelayRequestMeta } from '../relay/providers/adaptor.js';
import { providerOf } from '../relay/providers/registry.js';
import { channelMetaOf, mapModel } from '../relay/routing/channel-meta.js';
import type { ChannelRow } from '../relay/routing/relay-index.js';
import type { Upstream } from '../relay/upstream/upstream.js';
import { unsupportedMessage, upstreamError } from '../relay/pipeline/upstream-error.js';

export interface ChannelTestResult {
  readonly success: boolean;
  readonly message: string;
  /** Seconds the test took (0 on failure), as the console expects. */
  readonly time: number;
  readonly model: string;
  readonly error?: AppError;
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

/** Sends one small chat through the channel's own adaptor; stores response_time and test_time. */
export const testChannel = async (
  deps: {
    db: Kysely<Tables>;
    upstream: Upstream;
    timeoutMs: number;
    adaptorSettings?: AdaptorSettings | undefined;
  },
  row: ChannelRow,
  requested: string,
): Promise<ChannelTestResult> => {
  const model = testModelOf(row, requested);
  const provider = providerOf(row.type);
  const started = performance.now();
  const record = async (ms: number) => {
    await deps.db
      .updateTable('channels')
      .set({ response_time: ms, test_time: nowSeconds() })
      .where('id', '=', row.id)
      .execute();
  };
  const fail = async (error: AppError): Promise<ChannelTestResult> => {
    await record(0);
    return { success: false, message: error.message, time: 0, model: requested || model, error };
  };
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
  const channel = channelMetaOf(row, provider);
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
      return await fail(upstreamError(response.status, raw, adaptor, channel));
    const body = parseJson(raw);
    const parsed =
      body === undefined && adaptor.gatherStream
        ? adaptor.gatherStream(raw, meta)
        : adaptor.parseResponse(JSON.parse(raw) as unknown, meta);
    if (!parsed.usage && !parsed.text) return await fail(new AppError('bad_response', 'usage is nil', 500));
  } catch (error) {
    return fail(
      error instanceof AppError
        ? error
        : new AppError('do_request_failed', `the upstream could not be reached or answered badly`, 502),
    );
  }
  const elapsed = performance.now() - started;
  await record(Math.round(elapsed));
  return { success: true, message: '', time: Number((elapsed / 1000).toFixed(3)), model: requested || model };
};
