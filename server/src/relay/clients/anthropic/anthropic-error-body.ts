import type { UpstreamErrorInfo } from '../../providers/adaptor.js';
import type { ClientErrorInput } from '../client-format.js';

const BY_STATUS: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  503: 'overloaded_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** Anthropic's error type for an HTTP status (https://docs.anthropic.com/en/api/errors). */
export const anthropicErrorType = (status: number): string =>
  BY_STATUS[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');

/** An error as Anthropic's body: `{type:'error', error:{type, message}}`. */
export const anthropicErrorBody = (error: ClientErrorInput) => ({
  type: 'error' as const,
  error: { type: anthropicErrorType(error.status), message: error.message },
});

const ANTHROPIC_TYPES = new Set([...Object.values(BY_STATUS), 'api_error', 'timeout_error']);

/**
 * The type of an error reported mid-stream, which has no status: Anthropic's own type when the
 * provider gave one (an Anthropic channel), rate limits, overloads and timeouts (a stream that fell
 * silent) recognised in OpenAI's vocabulary, else api_error.
 */
export const anthropicStreamErrorType = (error: UpstreamErrorInfo): string => {
  if (ANTHROPIC_TYPES.has(error.type)) return error.type;
  const said = `${error.type} ${error.code}`;
  if (said.includes('rate_limit')) return 'rate_limit_error';
  if (said.includes('overloaded')) return 'overloaded_error';
  if (said.includes('timeout')) return 'timeout_error';
  return 'api_error';
};
