import type { ClientErrorInput } from '../client-format.js';

/** An error in OpenAI's shape, as the Responses API answers it: `{ error: { message, type, param, code } }`. */
export const responsesErrorBody = (error: ClientErrorInput) => ({
  error: {
    message: error.message,
    type: error.type,
    param: null,
    code: error.code === '' ? null : error.code,
  },
});
