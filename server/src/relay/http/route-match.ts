import type { IncomingHttpHeaders } from 'node:http';
import { RELAY_ROUTES, type RelayRoute } from '../request/relay-request.js';

const STATIC_ROUTES = new Map(
  RELAY_ROUTES.filter((route) => !route.path.includes(':')).map((route) => [route.path, route]),
);
const ENGINE_ROUTE = RELAY_ROUTES.find((route) => route.path.startsWith('/v1/engines/'));
const ENGINE_PATH = /^\/v1\/engines\/([^/]+)\/embeddings$/;
/** Gemini's `models/{model}:{method}` (the model may be URL-encoded). */
const GEMINI_PATH = /^\/v1beta\/models\/([^/:]+):([A-Za-z]+)$/;
const GEMINI_ROUTES = new Map(
  RELAY_ROUTES.filter((route) => route.path.startsWith('/v1beta/models/:model:')).map((route) => [
    route.path.slice('/v1beta/models/:model:'.length),
    route,
  ]),
);

/** The relay's POST paths start so; anything else goes on to Hono at once. */
export const isRelayPrefix = (url: string): boolean => url.startsWith('/v1/') || url.startsWith('/v1beta/');

const decoded = (text: string): string | undefined => {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
};

/** The route a POST path names (query and trailing slashes ignored, as on the other routes). */
export const matchRoute = (url: string): { route: RelayRoute; pathModel?: string } | undefined => {
  const query = url.indexOf('?');
  let path = query === -1 ? url : url.slice(0, query);
  while (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  const route = STATIC_ROUTES.get(path);
  if (route) return { route };
  const engine = ENGINE_PATH.exec(path);
  if (ENGINE_ROUTE && engine?.[1]) {
    const model = decoded(engine[1]);
    return model === undefined ? undefined : { route: ENGINE_ROUTE, pathModel: model };
  }
  const gemini = GEMINI_PATH.exec(path);
  const geminiRoute = gemini?.[2] ? GEMINI_ROUTES.get(gemini[2]) : undefined;
  if (!geminiRoute || !gemini?.[1]) return undefined;
  const model = decoded(gemini[1]);
  return model === undefined ? undefined : { route: geminiRoute, pathModel: model };
};

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
};

/**
 * The Sluice key as the client's format sends it: `Authorization: Bearer` (every format), Anthropic's
 * `x-api-key`, Google's `x-goog-api-key` or `?key=`. Answered as an Authorization value.
 */
export const credentialOf = (
  headers: IncomingHttpHeaders,
  url: string,
  route: RelayRoute,
): string | undefined => {
  const authorization = header(headers, 'authorization');
  if (authorization || !route.client) return authorization;
  if (route.client === 'anthropic') return header(headers, 'x-api-key');
  if (route.client !== 'gemini') return undefined;
  const google = header(headers, 'x-goog-api-key');
  if (google) return google;
  const query = url.indexOf('?');
  return query === -1 ? undefined : (new URLSearchParams(url.slice(query + 1)).get('key') ?? undefined);
};
