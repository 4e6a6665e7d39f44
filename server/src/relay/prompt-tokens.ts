import type { RelayRequest } from './relay-request.js';
import { countChatTokens, countTextTokens, inputText } from './token-counter.js';

/** The prompt's tokens by the local tokenizer (only when an upstream gives no usage). */
export const promptTokensOf = (request: RelayRequest, model: string, approximate: boolean): number => {
  if (request.mode === 'chat')
    return countChatTokens(request.body['messages'] as unknown[], model, approximate);
  if (request.mode === 'completions')
    return countTextTokens(inputText(request.body['prompt']), model, approximate);
  if (request.mode === 'moderations' || request.mode === 'embeddings')
    return countTextTokens(inputText(request.body['input']), model, approximate);
  return 0;
};

/** About four bytes a token: enough to size a reservation without running a tokenizer. */
export const estimatePromptTokens = (request: RelayRequest): number => {
  const field = request.mode === 'chat' ? 'messages' : request.mode === 'completions' ? 'prompt' : 'input';
  const value = request.body[field];
  if (value === undefined) return 0;
  return Math.ceil(Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value)) / 4);
};
