import type { UpstreamErrorInfo } from '../../providers/adaptor.js';
import type { ClientErrorInput } from '../client-format.js';

/**
 * Errors as Google's APIs write them: `{error: {code, message, status}}`, `status` being the
 * google.rpc.Code name of the HTTP status. 413 is INVALID_ARGUMENT: Google answers an oversized request
 * with it (the request is at fault, not the server's state). Statuses without a name of their own go
 * by class: another 4xx is FAILED_PRECONDITION, another 5xx INTERNAL.
 */
const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** The google.rpc.Code name of an HTTP status. */
export const geminiStatusName = (status: number): string =>
  STATUS_NAMES[status] ?? (status >= 400 && status < 500 ? 'FAILED_PRECONDITION' : 'INTERNAL');

export interface GeminiError {
  readonly error: { readonly code: number; readonly message: string; readonly status: string };
}

/** An error of the relay as Google's error body (the HTTP status stays the relay's). */
export const geminiErrorBody = (error: ClientErrorInput): GeminiError => ({
  error: { code: error.status, message: error.message, status: geminiStatusName(error.status) },
});

/** google.rpc.Code names → HTTP statuses (a Gemini channel's errors carry them as type and code). */
const CODES: Readonly<Record<string, number>> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  OUT_OF_RANGE: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  ABORTED: 409,
  RESOURCE_EXHAUSTED: 429,
  CANCELLED: 499,
  INTERNAL: 500,
  UNKNOWN: 500,
  DATA_LOSS: 500,
  UNIMPLEMENTED: 501,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

/** OpenAI's (and Anthropic's) error types and codes → HTTP statuses. */
const OPENAI_CODES: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  invalid_api_key: 401,
  permission_error: 403,
  insufficient_quota: 429,
  not_found_error: 404,
  model_not_found: 404,
  rate_limit_error: 429,
  rate_limit_exceeded: 429,
  overloaded_error: 503,
  timeout: 504,
};

/** The HTTP status an upstream error reported mid-stream stands for (500 when nothing says). */
const statusOfUpstream = (error: UpstreamErrorInfo): number => {
  for (const word of [error.code, error.type]) {
    const status = CODES[word] ?? OPENAI_CODES[word] ?? (/^[45]\d\d$/.test(word) ? Number(word) : undefined);
    if (status !== undefined) return status;
  }
  return 500;
};

/** An error the provider reported mid-stream, as the one event Google would send. */
export const geminiStreamError = (error: UpstreamErrorInfo): GeminiError => {
  const code = statusOfUpstream(error);
  const named =
    CODES[error.code] !== undefined ? error.code : CODES[error.type] !== undefined ? error.type : undefined;
  return { error: { code, message: error.message, status: named ?? geminiStatusName(code) } };
};
