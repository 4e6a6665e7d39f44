import { fullBody, type RelayRequest } from '../request/relay-request.js';
import { countChatTokens, countTextTokens, inputText } from './token-counter.js';

/** The prompt's tokens by the local tokenizer (only when an upstream gives no usage). */
export const promptTokensOf = (request: RelayRequest, model: string, approximate: boolean): number => {
  if (request.mode === 'chat')
    return countChatTokens(fullBody(request)['messages'] as unknown[], model, approximate);
  if (request.mode === 'completions')
    return countTextTokens(inputText(request.body['prompt']), model, approximate);
  if (request.mode === 'moderations' || request.mode === 'embeddings')
    return countTextTokens(inputText(request.body['input']), model, approximate);
  return 0;
};

const TEXT_MODES = new Set(['chat', 'completions', 'embeddings', 'moderations']);

/**
 * About four bytes a token, counted on the whole JSON body the client sent (its prompt is nearly all
 * of it): enough to size a reservation, which is settled against the real usage, without a tokenizer
 * or a second serialisation of the prompt.
 */
export const estimatePromptTokens = (request: RelayRequest): number =>
  TEXT_MODES.has(request.mode) ? Math.ceil(request.raw.byteLength / 4) : 0;
