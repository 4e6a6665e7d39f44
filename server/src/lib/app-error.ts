/**
 * The one error type of the server. `status` is the HTTP status for the relay and for 401/413/429 on
 * /api; `type` and `param` fill OpenAI's error body on /v1.
 */
export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
    readonly type = 'one_api_error',
    readonly param = '',
  ) {
    // A client's error (4xx) is an expected answer, and its stack would point at the check that made
    // it: capturing one was the largest cost of answering a flood of made-up keys. Server errors
    // keep theirs.
    const depth = Error.stackTraceLimit;
    if (status < 500) Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = depth;
  }
}

export const invalidParameter = (detail?: string): AppError =>
  new AppError('invalid_parameter', detail ? `invalid parameter: ${detail}` : 'invalid parameter');

export const businessError = (message: string): AppError => new AppError('business', message);

/** A /v1 error with OpenAI's shape and a real status. */
export const relayError = (status: number, code: string, message: string, type = 'one_api_error'): AppError =>
  new AppError(code, message, status, type);
