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

type Block = Record<string, unknown>;

interface ConverseMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

/** Converse's image formats, by media type (it reads only bytes or S3, not web URLs). */
const IMAGE_FORMATS: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

const contentBlocks = (content: ChatMessage['content']): Block[] => {
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  const blocks: Block[] = [];
  for (const part of content ?? []) {
    if (part.type === 'text' && part.text) blocks.push({ text: part.text });
    const url = part.type === 'image_url' ? imageUrlOf(part) : undefined;
    const inline = url ? parseDataUrl(url) : undefined;
    const format = inline && IMAGE_FORMATS[inline.mediaType.toLowerCase()];
    if (inline && format) blocks.push({ image: { format, source: { bytes: inline.data } } });
  }
  return blocks;
};

const blocksOf = (message: ChatMessage): ConverseMessage => {
  if (message.role === 'tool')
    return {
      role: 'user',
      content: [
        {
          toolResult: {
            toolUseId: message.tool_call_id ?? '',
            content: [{ text: contentText(message.content) }],
          },
        },
      ],
    };
  if (message.role === 'assistant') {
    const content = contentBlocks(message.content);
    for (const call of message.tool_calls ?? [])
      content.push({
        toolUse: {
          toolUseId: call.id,
          name: call.function.name,
          input: parseArguments(call.function.arguments),
        },
      });
    return { role: 'assistant', content };
  }
  return { role: 'user', content: contentBlocks(message.content) };
};

/** Converse wants roles to alternate: consecutive same-role messages (tool results) merge. */
const messagesOf = (messages: readonly ChatMessage[]): ConverseMessage[] => {
  const out: ConverseMessage[] = [];
  for (const message of messages) {
    if (isSystemRole(message.role)) continue;
    const next = blocksOf(message);
    if (next.content.length === 0) continue;
    const last = out.at(-1);
    if (last?.role === next.role) last.content.push(...next.content);
    else out.push(next);
  }
  return out;
};

const toolChoiceOf = (request: ChatRequest): Block | undefined => {
  const choice = request.tool_choice;
  if (choice === undefined || choice === null) return undefined;
  if (typeof choice === 'string')
    return choice === 'required' || choice === 'any'
      ? { any: {} }
      : choice === 'auto'
        ? { auto: {} }
        : undefined;
  return choice.function?.name ? { tool: { name: choice.function.name } } : { auto: {} };
};

/** `inferenceConfig`: only what the client set (each model has its own defaults). */
const inferenceConfigOf = (request: ChatRequest): Block | undefined => {
  const config: Block = {};
  const max = request.max_tokens || request.max_completion_tokens;
  if (max) config['maxTokens'] = max;
  if (typeof request.temperature === 'number') config['temperature'] = request.temperature;
  if (typeof request.top_p === 'number') config['topP'] = request.top_p;
  const stops = stopList(request.stop);
  if (stops) config['stopSequences'] = stops;
  return Object.keys(config).length > 0 ? config : undefined;
};

/**
 * The Converse / ConverseStream body of an OpenAI chat request (every family but Claude): messages
 * as content blocks (text, inline images, toolUse, toolResult), system prompts as `system`,
 * `inferenceConfig`, and the tools as `toolConfig` (tool_choice "none" sends no tools, as Converse
 * has no such choice). The model is in the URL, not the body.
 */
export const converseBody = (body: Record<string, unknown>): Record<string, unknown> => {
  const request = readChatRequest(body);
  const system = request.messages
    .filter((message) => isSystemRole(message.role))
    .map((message) => contentText(message.content))
    .filter((text) => text !== '')
    .map((text) => ({ text }));
  const out: Record<string, unknown> = { messages: messagesOf(request.messages) };
  if (system.length > 0) out['system'] = system;
  const inference = inferenceConfigOf(request);
  if (inference) out['inferenceConfig'] = inference;
  if (typeof request.top_k === 'number') out['additionalModelRequestFields'] = { top_k: request.top_k };
  const tools = request.tool_choice === 'none' ? [] : (request.tools ?? []);
  if (tools.length > 0) {
    const choice = toolChoiceOf(request);
    out['toolConfig'] = {
      tools: tools.map((tool) => ({
        toolSpec: {
          name: tool.function.name,
          ...(tool.function.description ? { description: tool.function.description } : {}),
          inputSchema: { json: tool.function.parameters ?? { type: 'object', properties: {} } },
        },
      })),
      ...(choice ? { toolChoice: choice } : {}),
    };
  }
  return out;
};
