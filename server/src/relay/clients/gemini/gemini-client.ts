import type { ClientFormat } from '../client-format.js';
import { geminiErrorBody } from './gemini-error-body.js';
import { geminiFromHub } from './gemini-from-hub.js';
import { geminiStreamWriter } from './gemini-stream-writer.js';
import { geminiToHub } from './gemini-to-hub.js';

/**
 * Gemini's native API (`models/{model}:generateContent`, `:streamGenerateContent?alt=sse`) through the
 * hub: the model and the streaming come from the route, not the body.
 */
export const geminiClient: ClientFormat = {
  name: 'gemini',
  toHub: geminiToHub,
  fromHub: geminiFromHub,
  streamWriter: geminiStreamWriter,
  errorBody: geminiErrorBody,
};

/** countTokens' answer. */
export const geminiCountAnswer = (totalTokens: number): { totalTokens: number } => ({ totalTokens });
