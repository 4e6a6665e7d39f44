import {
  contentText,
  imageUrlOf,
  isSystemRole,
  parseArguments,
  parseDataUrl,
  readChatRequest,
  stopList,
  type ChatMessage,
  type ChatRequest,
} from '../openai-chat-request.js';

/** Every harm category Gemini lets callers tune; Sluice turns all of them off (one-api's default). */
export const GEMINI_SAFETY_CATEGORIES = [
  'HARM_CATEGORY_HARASSMENT',
  'HARM_CATEGORY_HATE_SPEECH',
  'HARM_CATEGORY_SEXUALLY_EXPLICIT',
  'HARM_CATEGORY_DANGEROUS_CONTENT',
  'HARM_CATEGORY_CIVIC_INTEGRITY',
] as const;

type Part = Record<string, unknown>;

interface Content {
  role: 'user' | 'model';
  parts: Part[];
}

/** Keys OpenAI clients put in JSON schemas that Gemini's OpenAPI-subset schemas reject. */
const UNSUPPORTED_SCHEMA_KEYS = new Set(['$schema', 'additionalProperties', 'strict']);

/** A JSON schema without the keys Gemini rejects (property names themselves are kept). */
export const geminiSchema = (value: unknown, isPropertyMap = false): unknown => {
  if (Array.isArray(value)) return value.map((item) => geminiSchema(item));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => isPropertyMap || !UNSUPPORTED_SCHEMA_KEYS.has(key))
      .map(([key, child]) => [key, geminiSchema(child, !isPropertyMap && key === 'properties')]),
  );
};

/** Remote images cannot be inlined without downloading them: passed as fileData for Gemini to fetch. */
const mimeOfUrl = (url: string): string => {
  const extension = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase();
  const known: Record<string, string> = {
    png: 'image/png',
    gif: 'image/gif',
    webp: 'image/webp',
    heic: 'image/heic',
    heif: 'image/heif',
  };
  return (extension && known[extension]) || 'image/jpeg';
};

const partsOf = (content: ChatMessage['content']): Part[] => {
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  const parts: Part[] = [];
  for (const part of content ?? []) {
    if (part.type === 'text' && part.text) parts.push({ text: part.text });
    const url = part.type === 'image_url' ? imageUrlOf(part) : undefined;
    if (!url) continue;
    const inline = parseDataUrl(url);
    parts.push(
      inline
        ? { inlineData: { mimeType: inline.mediaType, data: inline.data } }
        : { fileData: { mimeType: mimeOfUrl(url), fileUri: url } },
    );
  }
  return parts;
};

/** A tool result as a functionResponse `response` (a JSON object; other text is wrapped). */
const responseOf = (text: string): Record<string, unknown> => {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // plain text result
  }
  return { content: text };
};

/** Contents with alternating roles: assistant → model, tool results → user functionResponse parts. */
const contentsOf = (messages: readonly ChatMessage[]): Content[] => {
  const callNames = new Map<string, string>();
  const out: Content[] = [];
  for (const message of messages) {
    if (isSystemRole(message.role)) continue;
    let content: Content;
    if (message.role === 'assistant') {
      const parts = partsOf(message.content);
      for (const call of message.tool_calls ?? []) {
        callNames.set(call.id, call.function.name);
        parts.push({
          functionCall: { name: call.function.name, args: parseArguments(call.function.arguments) },
        });
      }
      content = { role: 'model', parts };
    } else if (message.role === 'tool') {
      const name = callNames.get(message.tool_call_id ?? '') ?? message.name ?? '';
      const response = responseOf(contentText(message.content));
      content = { role: 'user', parts: [{ functionResponse: { name, response } }] };
    } else content = { role: 'user', parts: partsOf(message.content) };
    if (content.parts.length === 0) continue;
    const last = out.at(-1);
    if (last?.role === content.role) last.parts.push(...content.parts);
    else out.push(content);
  }
  return out;
};

const toolConfigOf = (choice: ChatRequest['tool_choice']): Record<string, unknown> | undefined => {
  if (choice === undefined || choice === null || choice === 'auto') return undefined;
  if (typeof choice === 'string')
    return { functionCallingConfig: { mode: choice === 'none' ? 'NONE' : 'ANY' } };
  return choice.function?.name
    ? { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } }
    : undefined;
};

const generationConfigOf = (request: ChatRequest): Record<string, unknown> => {
  const config: Record<string, unknown> = {};
  const set = (key: string, value: unknown) => {
    if (value !== undefined && value !== null) config[key] = value;
  };
  set('temperature', request.temperature);
  set('topP', request.top_p);
  set('topK', request.top_k);
  set('maxOutputTokens', request.max_tokens || request.max_completion_tokens || undefined);
  set('stopSequences', stopList(request.stop));
  if (typeof request.n === 'number' && request.n > 1) config['candidateCount'] = request.n;
  set('seed', request.seed);
  const format = request.response_format;
  if (format?.type === 'json_object' || format?.type === 'json_schema') {
    config['responseMimeType'] = 'application/json';
    if (format.json_schema?.schema) config['responseSchema'] = geminiSchema(format.json_schema.schema);
  }
  return config;
};

const parametersOf = (parameters: Record<string, unknown> | null | undefined): unknown => {
  const properties = parameters?.['properties'];
  const empty = typeof properties !== 'object' || properties === null || Object.keys(properties).length === 0;
  return empty ? undefined : geminiSchema(parameters);
};

/** Gemma and Gemini 1.0 refuse systemInstruction ("Developer instruction is not enabled"). */
export const supportsSystemInstruction = (model: string): boolean =>
  !/^(gemma-|gemini-pro$|gemini-1\.0-)/.test(model);

/**
 * The system text where the model takes it: systemInstruction, else (one-api's fallback) a user
 * turn followed by a model turn "Okay" ahead of the conversation.
 */
const withSystem = (model: string, system: string, contents: Content[]): Record<string, unknown> => {
  if (system === '') return { contents };
  if (supportsSystemInstruction(model)) return { contents, systemInstruction: { parts: [{ text: system }] } };
  return {
    contents: [
      { role: 'user', parts: [{ text: system }] },
      { role: 'model', parts: [{ text: 'Okay' }] },
      ...contents,
    ],
  };
};

/** The generateContent body of an OpenAI chat request. */
export const geminiChatBody = (
  body: Record<string, unknown>,
  model: string,
  /** GEMINI_SAFETY_SETTING: the threshold of every safety category. */
  safety = 'BLOCK_NONE',
): Record<string, unknown> => {
  const request = readChatRequest(body);
  const system = request.messages
    .filter((message) => isSystemRole(message.role))
    .map((message) => contentText(message.content))
    .filter((text) => text !== '')
    .join('\n');
  const declarations = (request.tools ?? []).map((tool) => {
    const parameters = parametersOf(tool.function.parameters);
    return {
      name: tool.function.name,
      ...(tool.function.description ? { description: tool.function.description } : {}),
      ...(parameters ? { parameters } : {}),
    };
  });
  const generationConfig = generationConfigOf(request);
  const toolConfig = declarations.length > 0 ? toolConfigOf(request.tool_choice) : undefined;
  return {
    ...withSystem(model, system, contentsOf(request.messages)),
    safetySettings: GEMINI_SAFETY_CATEGORIES.map((category) => ({
      category,
      threshold: safety || 'BLOCK_NONE',
    })),
    ...(Object.keys(generationConfig).length > 0 ? { generationConfig } : {}),
    ...(declarations.length > 0 ? { tools: [{ functionDeclarations: declarations }] } : {}),
    ...(toolConfig ? { toolConfig } : {}),
  };
};
