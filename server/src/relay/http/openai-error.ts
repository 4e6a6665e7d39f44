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
}

/** The one translation of an error into OpenAI's error body, for every /v1 and /dashboard answer. */
export const openAiErrorOf = (error: unknown, requestId: string): OpenAiErrorAnswer =>
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
      };
