import {
  contentText,
  imageUrlOf,
  isSystemRole,
  readChatRequest,
  stopList,
  type ChatMessage,
  type ChatRequest,
} from '../openai-chat-request.js';

/** A model named `<model>-internet` asks for Cohere's web-search connector (one-api's convention). */
export const INTERNET_SUFFIX = '-internet';

export const isInternetModel = (model: string): boolean => model.endsWith(INTERNET_SUFFIX);

/** The model Cohere knows: the `-internet` suffix removed. */
export const cohereModelOf = (model: string): string =>
  isInternetModel(model) ? model.slice(0, -INTERNET_SUFFIX.length) : model;

type Json = Record<string, unknown>;

/** User content: a string, or text and image_url parts (Cohere's vision models take images). */
const userContent = (content: ChatMessage['content']): string | Json[] => {
  if (typeof content === 'string' || !content) return content ?? '';
  if (!content.some((part) => part.type === 'image_url')) return contentText(content);
  const parts: Json[] = [];
  for (const part of content) {
    if (part.type === 'text' && part.text) parts.push({ type: 'text', text: part.text });
    const url = part.type === 'image_url' ? imageUrlOf(part) : undefined;
    if (url) parts.push({ type: 'image_url', image_url: { url } });
  }
  return parts;
};

const messageOf = (message: ChatMessage): Json => {
  if (isSystemRole(message.role)) return { role: 'system', content: contentText(message.content) };
  if (message.role === 'tool')
    return { role: 'tool', tool_call_id: message.tool_call_id ?? '', content: contentText(message.content) };
  if (message.role === 'assistant') {
    const calls = (message.tool_calls ?? []).map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.function.name, arguments: call.function.arguments || '{}' },
    }));
    const text = contentText(message.content);
    return {
      role: 'assistant',
      ...(text !== '' ? { content: text } : {}),
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    };
  }
  return { role: 'user', content: userContent(message.content) };
};

/** Sampling parameters, named as both Cohere versions name them. */
const samplingOf = (request: ChatRequest): Json => {
  const out: Json = {};
  const maxTokens = request.max_tokens || request.max_completion_tokens;
  if (maxTokens) out['max_tokens'] = maxTokens;
  if (typeof request.temperature === 'number') out['temperature'] = request.temperature;
  if (typeof request.top_p === 'number') out['p'] = request.top_p;
  if (typeof request.top_k === 'number') out['k'] = request.top_k;
  if (typeof request.seed === 'number') out['seed'] = request.seed;
  if (typeof request.frequency_penalty === 'number') out['frequency_penalty'] = request.frequency_penalty;
  if (typeof request.presence_penalty === 'number') out['presence_penalty'] = request.presence_penalty;
  const stops = stopList(request.stop);
  if (stops) out['stop_sequences'] = stops;
  return out;
};

/** OpenAI's tool_choice: 'required' or a named function → REQUIRED, 'none' → NONE, else Cohere's default. */
const toolChoiceOf = (request: ChatRequest): string | undefined => {
  const choice = request.tool_choice;
  if (choice === 'none') return 'NONE';
  if (choice === 'required' || (typeof choice === 'object' && choice?.function?.name)) return 'REQUIRED';
  return undefined;
};

/** Cohere's v2 chat body (`POST /v2/chat`): messages, tools in JSON schema, sampling, stream. */
export const cohereChatBody = (body: Json, model: string, stream: boolean): Json => {
  const request = readChatRequest(body);
  const named = typeof request.tool_choice === 'object' ? request.tool_choice?.function?.name : undefined;
  const tools = (request.tools ?? [])
    .filter((tool) => !named || tool.function.name === named)
    .map((tool) => ({
      type: 'function',
      function: {
        name: tool.function.name,
        ...(tool.function.description ? { description: tool.function.description } : {}),
        parameters: tool.function.parameters ?? { type: 'object', properties: {} },
      },
    }));
  const out: Json = { model, messages: request.messages.map(messageOf), ...samplingOf(request) };
  if (tools.length > 0) {
    out['tools'] = tools;
    const choice = toolChoiceOf(request);
    if (choice) out['tool_choice'] = choice;
  }
  const format = request.response_format;
  if (format?.type === 'json_object' || format?.type === 'json_schema')
    out['response_format'] = {
      type: 'json_object',
      ...(format.json_schema?.schema ? { json_schema: format.json_schema.schema } : {}),
    };
  if (stream) out['stream'] = true;
  return out;
};

const V1_ROLES: Readonly<Record<string, string>> = { user: 'USER', assistant: 'CHATBOT', system: 'SYSTEM' };

/**
 * Cohere's v1 chat body (`POST /v1/chat`), for a `-internet` model as one-api sent it: the last
 * user message as `message`, the others as `chat_history`, and the web-search connector (v2 has no
 * connectors).
 */
export const cohereV1ChatBody = (body: Json, model: string, stream: boolean): Json => {
  const request = readChatRequest(body);
  const messages = request.messages.map((message) => ({
    role: isSystemRole(message.role) ? 'SYSTEM' : (V1_ROLES[message.role] ?? 'USER'),
    message: contentText(message.content),
  }));
  const lastUser = messages.findLastIndex((message) => message.role === 'USER');
  const message = lastUser === -1 ? '' : (messages[lastUser]?.message ?? '');
  const history = messages.filter((_, index) => index !== lastUser);
  return {
    model,
    message,
    ...(history.length > 0 ? { chat_history: history } : {}),
    connectors: [{ id: 'web-search' }],
    ...samplingOf(request),
    ...(stream ? { stream: true } : {}),
  };
};
