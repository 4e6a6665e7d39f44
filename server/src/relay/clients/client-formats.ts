import {
  ANTHROPIC_ONLY,
  anthropicClient,
  anthropicCountAnswer,
  readAnthropicCountRequest,
} from './anthropic/index.js';
import type { ClientFormat, ClientFormatName, ClientRoute } from './client-format.js';
import {
  GEMINI_UNSUPPORTED,
  geminiClient,
  geminiCountAnswer,
  readGeminiCountRequest,
} from './gemini/index.js';
import { RESPONSES_ONLY, responsesClient } from './responses/index.js';

/** A client format and its token-count route, when it has one. */
export interface ClientFormatEntry {
  readonly format: ClientFormat;
  /** The code of `toHub`'s refusals of what only the format's own provider runs (relayed natively). */
  readonly nativeOnly?: string;
  readonly count?: {
    /** The count request read into a hub chat body. */
    read(body: Readonly<Record<string, unknown>>, route: ClientRoute): Record<string, unknown>;
    /** The answer of a count. */
    answer(tokens: number): unknown;
  };
}

/** Every client format but the hub's own (OpenAI's, served by the relay's other routes). */
export const CLIENT_FORMATS: Readonly<Record<Exclude<ClientFormatName, 'openai'>, ClientFormatEntry>> = {
  anthropic: {
    format: anthropicClient,
    nativeOnly: ANTHROPIC_ONLY,
    count: { read: (body) => readAnthropicCountRequest(body), answer: anthropicCountAnswer },
  },
  responses: { format: responsesClient, nativeOnly: RESPONSES_ONLY },
  gemini: {
    format: geminiClient,
    nativeOnly: GEMINI_UNSUPPORTED,
    count: {
      read: (body, route) => readGeminiCountRequest(body, route.model ?? ''),
      answer: geminiCountAnswer,
    },
  },
};
