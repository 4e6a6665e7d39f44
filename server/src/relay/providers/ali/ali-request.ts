import type { RelayRequestMeta } from '../adaptor.js';
import { readChatRequest } from '../openai-chat-request.js';

const INTERNET = '-internet';

/** The model DashScope is asked for: a `-internet` suffix is dropped (it turns search on). */
export const aliModel = (model: string): string =>
  model.endsWith(INTERNET) ? model.slice(0, -INTERNET.length) : model;

/**
 * An OpenAI chat body as DashScope's text-generation body: `input.messages` as they came (OpenAI's
 * roles and tool calls), `parameters` with `result_format: message`, `incremental_output` on streams,
 * top_p below 1 (DashScope refuses 1), tools, and `enable_search` for a `-internet` model (one-api).
 */
export const aliChatBody = (
  body: Record<string, unknown>,
  meta: RelayRequestMeta,
): Record<string, unknown> => {
  const request = readChatRequest(body);
  const parameters: Record<string, unknown> = { result_format: 'message' };
  if (meta.stream) parameters['incremental_output'] = true;
  if (meta.model.endsWith(INTERNET)) parameters['enable_search'] = true;
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens != null) parameters['max_tokens'] = maxTokens;
  if (request.temperature != null) parameters['temperature'] = request.temperature;
  if (request.top_p != null) parameters['top_p'] = Math.min(request.top_p, 0.9999);
  if (request.top_k != null) parameters['top_k'] = request.top_k;
  if (request.seed != null) parameters['seed'] = request.seed;
  if (request.stop != null)
    parameters['stop'] = typeof request.stop === 'string' ? [request.stop] : request.stop;
  if (request.tools?.length) parameters['tools'] = request.tools;
  if (request.tool_choice != null) parameters['tool_choice'] = request.tool_choice;
  return { model: aliModel(meta.model), input: { messages: request.messages }, parameters };
};

/** An OpenAI embeddings body as DashScope's: `input.texts`. */
export const aliEmbeddingsBody = (
  body: Record<string, unknown>,
  meta: RelayRequestMeta,
): Record<string, unknown> => {
  const input = body['input'];
  const texts = typeof input === 'string' ? [input] : Array.isArray(input) ? input : [];
  return { model: meta.model, input: { texts }, parameters: { text_type: 'query' } };
};
