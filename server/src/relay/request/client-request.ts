import { AppError } from '../../lib/app-error.js';
import { nowSeconds } from '../../lib/time.js';
import type { ClientFormatName, ClientRoute } from '../clients/client-format.js';
import { CLIENT_FORMATS } from '../clients/client-formats.js';
import type { ClientCall } from '../pipeline/relay-context.js';
import { hubRelayRequest, parseJsonObject, type RelayRequest, type RelayRoute } from './relay-request.js';

/** A request in a client format of its own, read: relayed through the hub, or only counted. */
export type ClientRead =
  | { readonly kind: 'relay'; readonly request: RelayRequest; readonly client: ClientCall }
  | { readonly kind: 'count'; readonly request: RelayRequest; readonly answer: (tokens: number) => unknown };

/**
 * Reads a client format's body into its hub form (relay/clients/): the request the pipeline relays,
 * with what answers it back in the client's format; or, on a count route, what the count needs.
 */
export const readClientRequest = (
  route: RelayRoute & { client: Exclude<ClientFormatName, 'openai'> },
  raw: Uint8Array,
  pathModel: string | undefined,
  requestId: string,
): ClientRead => {
  const entry = CLIENT_FORMATS[route.client];
  const body = parseJsonObject(raw);
  const clientRoute = { model: pathModel, stream: route.stream };
  if (route.count) {
    const count = entry.count;
    if (!count) throw new Error(`the ${route.client} format has no count route`);
    return {
      kind: 'count',
      request: hubRelayRequest(count.read(body, clientRoute)),
      answer: (tokens) => count.answer(tokens),
    };
  }
  let hub: Record<string, unknown>;
  let hubRefusal: AppError | undefined;
  try {
    hub = entry.format.toHub(body, clientRoute);
  } catch (error) {
    // What only the format's own provider runs (server tools, …): relayed to native channels only.
    if (!(error instanceof AppError) || error.code !== entry.nativeOnly) throw error;
    hubRefusal = error;
    hub = nativeOnlyHub(body, clientRoute);
  }
  const request = hubRelayRequest(hub);
  return {
    kind: 'relay',
    request,
    client: {
      format: entry.format,
      context: { model: request.model, requestId, request: body, created: nowSeconds() },
      body,
      raw,
      hubRefusal,
    },
  };
};

/**
 * The hub form of a request the hub cannot express: only what routing, admission and the log need
 * (the model, the stream, the output limit); it is never sent upstream.
 */
const nativeOnlyHub = (
  body: Readonly<Record<string, unknown>>,
  route: ClientRoute,
): Record<string, unknown> => ({
  model: route.model ?? body['model'],
  stream: route.stream === true || body['stream'] === true,
  ...(typeof body['max_tokens'] === 'number' ? { max_tokens: body['max_tokens'] } : {}),
  ...(typeof body['max_output_tokens'] === 'number' ? { max_tokens: body['max_output_tokens'] } : {}),
  messages: [{ role: 'user', content: '' }],
});
