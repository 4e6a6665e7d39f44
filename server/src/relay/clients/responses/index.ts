import type { ClientFormat } from '../client-format.js';
import { responsesErrorBody } from './responses-error.js';
import { responsesToHub } from './responses-request.js';
import { hubToResponse } from './responses-response.js';
import { createResponsesNativeBreak } from './responses-native-break.js';
import { createResponsesStreamWriter } from './responses-stream.js';

/**
 * The OpenAI Responses API (`POST /v1/responses`: Codex CLI, the `openai` SDK's
 * `responses.create`) as a client format: its requests read into the hub's chat body, the hub's
 * answers and streams written back as Responses. Stateless (every answer says `store: false`).
 * Custom (freeform) tools travel as functions with one string parameter, `input`
 * (`CUSTOM_TOOL_INPUT`); see `responses-tools.ts`.
 */
export const responsesClient: ClientFormat = {
  name: 'responses',
  toHub: (body) => responsesToHub(body),
  fromHub: (completion, context) => hubToResponse(completion, context),
  streamWriter: (context) => createResponsesStreamWriter(context),
  errorBody: (error) => responsesErrorBody(error),
  nativeBreak: createResponsesNativeBreak,
};

export { needsResponsesUpstream, preferResponsesUpstream } from './responses-upstream.js';
export { RESPONSES_ONLY } from './responses-schema.js';
export { CUSTOM_TOOL_INPUT } from './responses-tools.js';
