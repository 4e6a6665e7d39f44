import { AppError } from '../../lib/app-error.js';
import { checkImageRequest } from '../request/image-rules.js';
import { fullBody } from '../request/relay-request.js';
import { warnIfUnpriced, ratiosFor } from '../metering/pricing.js';
import type { ClientFormatName } from '../clients/client-format.js';
import type { Adaptor, ChannelMeta, NativeFormat, RelayRequestMeta } from '../providers/adaptor.js';
import { providerOf } from '../providers/registry.js';
import { mapModel, withSystemPrompt } from '../routing/channel-meta.js';
import { pickKey, refuseKey, type PickedKey } from '../routing/channel-keys.js';
import type { ChannelRow } from '../routing/relay-index.js';
import { ANSWERS, answerKindOf, isMultipart } from './answers.js';
import { inClientFormat } from './client-reply.js';
import { nativeAnswer } from './native-answers.js';
import type { RequestContext } from './relay-context.js';
import type { RelayReply } from './relay-response.js';
import {
  AttemptFailure,
  isRetryableStatus,
  rememberToken,
  transportFailure,
  unsupportedChannel,
  upstreamError,
} from './upstream-error.js';

/**
 * One attempt on one channel: translate the request for the channel's provider, send it, and hand
 * a 2xx answer to the answer handler of its kind (answers.ts), which settles the request. Any
 * failure is thrown as an AttemptFailure (the pipeline tries the next channel when it is retryable).
 */
export const runAttempt = async (context: RequestContext, row: ChannelRow): Promise<RelayReply> => {
  const { request } = context.call;
  const provider = providerOf(row.type);
  const adaptor = provider?.adaptor;
  if (!adaptor || !adaptor.modes.includes(request.mode)) throw unsupportedChannel(row.type, request.mode);
  const key = pickKey(row, provider, context.call.route);
  if (context.charged.routing) context.charged.routing.key = key.index;
  if (key.id === undefined) return attemptWith(context, row, adaptor, key.channel);
  try {
    return await attemptWith(context, row, adaptor, key.channel);
  } catch (error) {
    throw keyFailure(context, row, key, error);
  }
};

/**
 * A failed attempt with one of a channel's several keys: a key the upstream refused (the boot's rule
 * decides) is disabled alone, and while another key serves the failure is not the channel's (the
 * pipeline tries the same channel again with its next key, counting nothing against the channel).
 * The last key's refusal is the channel's, as one-api's one key.
 */
const keyFailure = (context: RequestContext, row: ChannelRow, key: PickedKey, error: unknown): unknown => {
  if (!(error instanceof AttemptFailure) || !error.channelsFault || key.id === undefined) return error;
  if (!context.deps.onKeyRefused?.(row.id, key.id, error.error)) return error;
  return refuseKey(row, key.index) > 0
    ? new AttemptFailure(error.error, error.retryable, false, true)
    : error;
};

const attemptWith = async (
  context: RequestContext,
  row: ChannelRow,
  adaptor: Adaptor,
  channel: ChannelMeta,
): Promise<RelayReply> => {
  const { deps, call } = context;
  const { request } = call;
  const model = mapModel(row, request.model);
  // As one-api: checked against the model the channel maps to; a 400, whichever channel is next.
  if (request.mode === 'images') checkImageRequest(model, request.body);
  const systemPrompt = request.mode === 'chat' ? (row.system_prompt ?? '').trim() : '';
  // A client whose format the channel speaks itself is passed through untouched (the channel's own
  // system prompt, which must be honoured, sends it through the hub instead).
  const client = call.client;
  const native = client && !systemPrompt ? nativeFormatOf(adaptor, client.format.name, model) : undefined;
  const multipart = isMultipart(request.mode);
  // The client's own bytes go upstream when nothing in them changes; then the small members of a
  // large body are all the adaptor reads (the whole body is parsed only when it must be rewritten).
  const passesBytes =
    adaptor.kind === 'pass-through' && model === request.model && !systemPrompt && !multipart;
  const body = native
    ? (client?.body ?? request.body)
    : systemPrompt
      ? withSystemPrompt(fullBody(request), systemPrompt)
      : passesBytes
        ? request.body
        : fullBody(request);
  // A provider that needs an access token first: from the cache, or fetched once (a failure is the channel's).
  let token: string | undefined;
  if (adaptor.token)
    try {
      token = await deps.upstream.token(adaptor.token, channel);
      if (token) rememberToken(channel, token);
    } catch (error) {
      // Refused credentials (whatever status the token endpoint used) are this channel's: try the next.
      if (error instanceof AppError) throw new AttemptFailure(error, true);
      throw transportFailure(error, call.clientSignal.aborted);
    }
  const meta: RelayRequestMeta = {
    token,
    mode: request.mode,
    path: request.path,
    model,
    stream: request.stream,
    channel,
    body,
    clientHeaders: call.clientHeaders,
    settings: deps.adaptorSettings,
    raw: passesBytes ? request.raw : undefined,
  };
  // A request only the format's own provider runs fails over past a channel that does not speak it.
  if (client?.hubRefusal && !native) throw new AttemptFailure(client.hubRefusal, true, false);
  const built =
    native && client ? native.buildRequest(client.body, client.raw, meta) : adaptor.buildRequest(body, meta);
  // A provider that signs its requests (AWS SigV4) signs the request as built.
  const upstreamRequest = adaptor.sign ? await adaptor.sign(built, meta) : built;
  const outgoing = multipart
    ? {
        ...upstreamRequest,
        headers: { ...upstreamRequest.headers, 'content-type': request.contentType },
        body: request.raw,
      }
    : upstreamRequest;
  // The channel's own timeouts (its config), else the defaults; a stream must open by `openBy`.
  const timeouts = deps.upstream.timeoutsOf(row);
  const sentAt = performance.now();
  const openBy = sentAt + timeouts.firstByteMs;
  let response;
  try {
    response = await deps.upstream.send(outgoing, call.clientSignal, timeouts);
  } catch (error) {
    throw transportFailure(error, call.clientSignal.aborted);
  }
  const wait = context.upstreamWait;
  if (wait) {
    // The overhead counts the upstream's time from here to its last byte read (a polled task: none).
    wait.sentAt = sentAt;
    wait.body = adaptor.task?.applies(meta) ? undefined : response.body;
  }
  const contentType = response.headers['content-type'] ?? '';
  const kind = answerKindOf(request);
  if (
    response.status < 200 ||
    response.status > 299 ||
    (kind === 'stream' && contentType.startsWith('application/json') && !decodesJson(adaptor, meta))
  ) {
    const raw = (await response.body.readAll(1024 * 1024).catch(() => Buffer.alloc(0))).toString('utf8');
    // A JSON body with a 2xx to a stream request is the provider's error: a bad answer (502), as a
    // 200 stream that does not open (stream/stream-opening.ts).
    const status = response.status >= 200 && response.status <= 299 ? 502 : response.status;
    throw new AttemptFailure(upstreamError(status, raw, adaptor, channel), isRetryableStatus(status));
  }
  const ratios = ratiosFor(model, row.type, context.admission.group, context.options);
  warnIfUnpriced(ratios, model, deps.logger);
  const answer = {
    context,
    channelId: row.id,
    adaptor,
    meta,
    response,
    contentType,
    model,
    ratios,
    systemPromptReset: systemPrompt !== '',
    openBy,
  };
  if (native) return nativeAnswer(answer, native);
  const answered = ANSWERS[kind](answer);
  if (!client) return answered;
  return answered instanceof Promise
    ? answered.then((reply) => inClientFormat(client, reply))
    : inClientFormat(client, answered);
};

/** A stream its adaptor decodes itself (DeepL, PaLM: one JSON body emitted as one chunk). */
const decodesJson = (adaptor: Adaptor, meta: RelayRequestMeta): boolean =>
  adaptor.kind === 'translating' && adaptor.decodeStream?.(meta) !== undefined;

/** The provider's own handling of a client format, when it speaks it for the model. */
const nativeFormatOf = (
  adaptor: Adaptor,
  format: ClientFormatName,
  model: string,
): NativeFormat | undefined =>
  adaptor.native?.find((candidate) => candidate.format === format && (candidate.serves?.(model) ?? true));
