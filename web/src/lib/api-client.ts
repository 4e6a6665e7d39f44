import { envelopeSchema, pageAnswerSchema } from '@sluice/contract/schemas/common';
import { z } from 'zod';
import { parseJson } from '@sluice/contract/parse-json';

/**
 * The one HTTP client of the console: every call goes through `apiCall`, which sends the session
 * cookie, unwraps the `{success, message, data}` envelope and parses `data` with a contract schema.
 * Failures are thrown as `HttpError` (non-2xx) or `BusinessError` (`success: false`); the error
 * handler (error-handler.ts) turns them into the toasts and redirects of spec §8. React Query routes
 * every failed query and mutation there, so callers never catch to report.
 */

/** The HTTP base address: a build-time setting (VITE_SERVER_BASE), empty by default (spec §7). */
export const API_BASE: string = (import.meta.env.VITE_SERVER_BASE ?? '').replace(/\/+$/, '');

/** A non-2xx answer. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A 2xx answer with `success: false`: `message` is the server's text. */
export class BusinessError extends Error {
  override readonly name = 'BusinessError';
}

export type QueryValue = string | number | boolean | undefined;
export type Query = Readonly<Record<string, QueryValue>>;

/** `path?key=value&…` with every defined value encoded (empty strings are kept: the server reads them). */
export const withQuery = (path: string, query: Query = {}): string => {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text === '' ? path : `${path}${path.includes('?') ? '&' : '?'}${text}`;
};

export interface CallOptions<T> {
  readonly query?: Query;
  readonly body?: unknown;
  /** Schema of `data`; omit for calls whose answer carries no data. */
  readonly schema?: z.ZodType<T>;
  readonly signal?: AbortSignal;
}

export interface CallResult<T> {
  readonly message: string;
  readonly data: T | undefined;
}

const messageOf = (body: unknown): string | undefined => {
  const parsed = z.object({ message: z.string() }).safeParse(body);
  return parsed.success && parsed.data.message !== '' ? parsed.data.message : undefined;
};

const readJson = async (response: Response): Promise<unknown> => parseJson(await response.text());

/** Sends one request; resolves with the successful envelope and the whole answer, or throws. */
const request = async (
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  options: Omit<CallOptions<unknown>, 'schema'>,
) => {
  const init: RequestInit = { method, credentials: 'include', signal: options.signal };
  if (options.body !== undefined) {
    init.headers = { 'Content-Type': 'application/json' };
    init.body = JSON.stringify(options.body);
  }
  const response = await fetch(API_BASE + withQuery(path, options.query), init);
  const body = await readJson(response);
  if (!response.ok)
    throw new HttpError(
      response.status,
      messageOf(body) ?? `Request failed with status code ${response.status}`,
    );
  const envelope = envelopeSchema(z.unknown()).parse(body);
  if (!envelope.success) throw new BusinessError(envelope.message);
  return { envelope, body };
};

/** Sends one request; resolves with the envelope's message and parsed data, or throws. */
export const apiCall = async <T = undefined>(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  options: CallOptions<T> = {},
): Promise<CallResult<T>> => {
  const { envelope } = await request(method, path, options);
  const data =
    options.schema && envelope.data !== undefined ? options.schema.parse(envelope.data) : undefined;
  return { message: envelope.message, data };
};

/**
 * A GET whose answer puts its fields beside the envelope instead of in `data` (channel test: `time`
 * and `model`; balance update: `balance`): the whole answer parsed with `schema`, failures as usual.
 */
export const apiGetFlat = async <T>(path: string, schema: z.ZodType<T>, query?: Query): Promise<T> =>
  schema.parse((await request('GET', path, { query })).body);

/** One page of a list and the number of rows the whole list holds. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly total: number;
}

/**
 * GET of page `p` (from 0) of `size` rows: the rows in `data` and the list's `total` beside the
 * envelope. A server that sends no total (one-api) is paged on while its pages come full.
 */
export const apiGetPage = async <T>(
  path: string,
  item: z.ZodType<T>,
  query: Query & { readonly p: number; readonly size: number },
): Promise<Page<T>> => {
  const answer = await apiGetFlat(path, pageAnswerSchema(item).partial({ total: true }), query);
  const seen = query.p * query.size + answer.data.length;
  return { items: answer.data, total: answer.total ?? (answer.data.length >= query.size ? seen + 1 : seen) };
};

/** The data of a call that must carry data (a missing `data` is an error). */
const required = async <T>(result: Promise<CallResult<T>>): Promise<T> => {
  const { data } = await result;
  if (data === undefined) throw new Error('the server sent no data');
  return data;
};

/** Shorthands: `get`/`post`/`put`/`del` return the parsed data; `send` is for data-less answers. */
export const api = {
  get: <T>(path: string, schema: z.ZodType<T>, query?: Query) =>
    required(apiCall('GET', path, { schema, query })),
  post: <T>(path: string, body: unknown, schema: z.ZodType<T>, query?: Query) =>
    required(apiCall('POST', path, { schema, body, query })),
  put: <T>(path: string, body: unknown, schema: z.ZodType<T>, query?: Query) =>
    required(apiCall('PUT', path, { schema, body, query })),
  del: <T>(path: string, schema: z.ZodType<T>, query?: Query) =>
    required(apiCall('DELETE', path, { schema, query })),
  send: (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown, query?: Query) =>
    apiCall(method, path, { body, query }),
};

/**
 * Downloads a file answer (CSV export): a non-2xx answer or a JSON envelope with `success: false`
 * is thrown like any other failure.
 */
export const apiDownload = async (path: string, query: Query, fallbackName: string): Promise<void> => {
  const response = await fetch(API_BASE + withQuery(path, query), { credentials: 'include' });
  if (!response.ok) {
    throw new HttpError(
      response.status,
      messageOf(await readJson(response)) ?? `Request failed with status code ${response.status}`,
    );
  }
  if (response.headers.get('content-type')?.includes('application/json')) {
    const envelope = envelopeSchema(z.unknown()).parse(await response.json());
    throw new BusinessError(envelope.message);
  }
  const name = /filename="?([^";]+)"?/.exec(response.headers.get('content-disposition') ?? '')?.[1];
  saveBlob(await response.blob(), name ?? fallbackName);
};

/** Saves a blob as a download named `filename`. */
export const saveBlob = (blob: Blob, filename: string): void => {
  const url = URL.createObjectURL(blob);
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = filename;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
};

/** Saves text as a UTF-8 text file (redemption codes). */
export const downloadText = (text: string, filename: string): void =>
  saveBlob(new Blob([text], { type: 'text/plain;charset=utf-8' }), filename);
