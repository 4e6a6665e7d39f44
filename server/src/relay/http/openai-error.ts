import { databaseUnavailable, isDatabaseUnavailable } from '../../db/database-unavailable.js';
import { AppError } from '../../lib/app-error.js';

export interface OpenAiErrorAnswer {
  readonly status: number;
  readonly body: {
    readonly error: {
      readonly message: string;
      readonly type: string;
      readonly param: string;
      readonly code: string;
    };
  };
  /** Not an AppError: a defect to log, answered as a 500 without its details. */
  readonly unexpected: boolean;
  /** The database could not be reached: answered 503 (logged as a warning, not as a defect). */
  readonly unavailable: boolean;
}

/**
 * The one translation of an error into OpenAI's error body, for every /v1 and /dashboard answer. A
 * database that cannot be reached is a 503 `database_unavailable`.
 */
export const openAiErrorOf = (error: unknown, requestId: string): OpenAiErrorAnswer => {
  const unavailable = !(error instanceof AppError) && isDatabaseUnavailable(error);
  return translate(unavailable ? databaseUnavailable() : error, requestId, unavailable);
};

const translate = (error: unknown, requestId: string, unavailable: boolean): OpenAiErrorAnswer =>
  error instanceof AppError
    ? {
        status: error.status,
        body: {
          error: {
            message: `${error.message} (request id: ${requestId})`,
            type: error.type,
            param: error.param,
            code: error.code,
          },
        },
        unexpected: false,
        unavailable,
      }
    : {
        status: 500,
        body: {
          error: {
            message: `internal server error (request id: ${requestId})`,
            type: 'sluice_error',
            param: '',
            code: '',
          },
        },
        unexpected: true,
        unavailable: false,
      };
