import type { UpstreamErrorInfo } from '../../providers/adaptor.js';

/** The codes a failed response's `error.code` may take (the `openai` SDK's `ResponseError`). */
const RESPONSE_ERROR_CODES: ReadonlySet<string> = new Set([
  'server_error',
  'rate_limit_exceeded',
  'invalid_prompt',
  'data_residency_mismatch',
  'bio_policy',
  'vector_store_timeout',
  'invalid_image',
  'invalid_image_format',
  'invalid_base64_image',
  'invalid_image_url',
  'image_too_large',
  'image_too_small',
  'image_parse_error',
  'image_content_policy_violation',
  'invalid_image_mode',
  'image_file_too_large',
  'unsupported_image_media_type',
  'empty_image_file',
  'failed_to_download_image',
  'image_file_not_found',
]);

/**
 * A failed response's `error`: the code when the Responses API knows it, else `server_error` (a
 * broken or silent upstream, a provider's own code); the relay's own code stays in the `error`
 * event before it, whose code is free text.
 */
export const responseError = (error: UpstreamErrorInfo): { code: string; message: string } => ({
  code: RESPONSE_ERROR_CODES.has(error.code) ? error.code : 'server_error',
  message: error.message,
});

/**
 * The two events that end a Responses stream that failed: `error` (the SDK's `responses.stream()`
 * raises it) and `response.failed` with the response as it stood (Codex CLI's terminal error),
 * numbered from `sequence`. Never a `response.completed`.
 */
export const failedEvents = (error: UpstreamErrorInfo, response: unknown, sequence: number): string =>
  `event: error\ndata: ${JSON.stringify({
    type: 'error',
    code: error.code || null,
    message: error.message,
    param: null,
    sequence_number: sequence,
  })}\n\n` +
  `event: response.failed\ndata: ${JSON.stringify({
    type: 'response.failed',
    response,
    sequence_number: sequence + 1,
  })}\n\n`;
