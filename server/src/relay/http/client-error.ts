import type { ClientFormatName } from '../clients/client-format.js';
import { CLIENT_FORMATS } from '../clients/client-formats.js';
import { openAiErrorOf, type OpenAiErrorAnswer } from './openai-error.js';

/** An error answer in the client's format: OpenAI's translation (openai-error.ts), reshaped. */
export interface ClientErrorAnswer extends Omit<OpenAiErrorAnswer, 'body'> {
  readonly body: unknown;
}

/**
 * The one translation of a relay error, in the format the client speaks: OpenAI's shape for its own
 * routes, the format's error body (relay/clients/) for the others. The status stays the relay's.
 */
export const clientErrorOf = (
  error: unknown,
  requestId: string,
  client: Exclude<ClientFormatName, 'openai'> | undefined,
): ClientErrorAnswer => {
  const answer = openAiErrorOf(error, requestId);
  if (!client) return answer;
  const { message, type, code } = answer.body.error;
  return {
    ...answer,
    body: CLIENT_FORMATS[client].format.errorBody({ status: answer.status, message, type, code }),
  };
};
