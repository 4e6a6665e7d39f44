import type { ClientRoute } from '../client-format.js';
import { hubGenerationFields, hubToolChoice, hubTools } from './gemini-hub-options.js';
import { geminiMessages, geminiSystemText } from './gemini-messages.js';
import {
  geminiInvalid,
  geminiUnsupported,
  readGeminiCountRequestBody,
  readGeminiRequest,
  type GeminiRequest,
} from './gemini-wire.js';

/** The model named by the route (`models/` prefix dropped), else by the body (countTokens' generateContentRequest). */
const modelOf = (route: ClientRoute, body: Readonly<Record<string, unknown>>): string => {
  const given = route.model || (typeof body['model'] === 'string' ? body['model'] : '');
  const model = given.startsWith('models/') ? given.slice(7) : given;
  if (model.trim() === '')
    throw geminiInvalid('model: the model is required (models/{model}:generateContent)');
  return model;
};

/** A generateContent request, read, as the hub's chat completions body. */
const hubBody = (request: GeminiRequest, model: string, stream: boolean): Record<string, unknown> => {
  if (request.cachedContent)
    throw geminiUnsupported('cachedContent: cached content is not supported on this model');
  const system = request.systemInstruction ? geminiSystemText(request.systemInstruction) : '';
  const messages = [
    ...(system === '' ? [] : [{ role: 'system', content: system }]),
    ...geminiMessages(request.contents),
  ];
  if (messages.length === 0)
    throw geminiInvalid('contents: the contents carry no text, media or function parts');
  const declared = hubTools(request.tools ?? []);
  const { tools, toolChoice } = hubToolChoice(request.toolConfig, declared);
  return {
    model,
    messages,
    ...(tools.length > 0 ? { tools } : {}),
    ...(tools.length > 0 && toolChoice !== undefined ? { tool_choice: toolChoice } : {}),
    ...hubGenerationFields(request.generationConfig),
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
};

/**
 * A generateContent (or streamGenerateContent) body as the hub's OpenAI chat completions body; the
 * model and the streaming come from the route.
 */
export const geminiToHub = (
  body: Readonly<Record<string, unknown>>,
  route: ClientRoute,
): Record<string, unknown> => hubBody(readGeminiRequest(body), modelOf(route, body), route.stream === true);

/** A countTokens body (`contents`, or a whole `generateContentRequest`) as the hub's chat body to count. */
export const readGeminiCountRequest = (
  body: Readonly<Record<string, unknown>>,
  model: string | undefined,
): Record<string, unknown> => {
  const request = readGeminiCountRequestBody(body);
  const inner = body['generateContentRequest'] ?? body['generate_content_request'];
  const named = typeof inner === 'object' && inner !== null ? (inner as Record<string, unknown>) : {};
  return hubBody(request, modelOf({ model }, named), false);
};
