/** The one error type of the server. `status` is the HTTP status for the relay and for 401/429 on /api. */
export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

export const invalidParameter = (detail?: string): AppError =>
  new AppError('invalid_parameter', detail ? `invalid parameter: ${detail}` : 'invalid parameter');

export const businessError = (message: string): AppError => new AppError('business', message);
