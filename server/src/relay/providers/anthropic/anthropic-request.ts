import {
  contentText,
  imageUrlOf,
  isSystemRole,
  maxTokensOf,
  parseArguments,
  parseDataUrl,
  readChatRequest,
  stopList,
  type ChatMessage,
  type ChatRequest,
} from '../openai-chat-request.js';

/** Anthropic's default completion limit when the client gives none (max_tokens is required there). */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

type Block = Record<string, unknown>;

interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

const imageBlock = (url: string): Block => {
  const inline = parseDataUrl(url);
  return inline
    ? { type: 'image', source: { type: 'base64', media_type: inline.mediaType, data: inline.data } }
    : { type: 'image', source: { type: 'url', url } };
};

/** User or assistant content as blocks; empty text is dropped (Anthropic rejects empty text blocks). */
const contentBlocks = (content: ChatMessage['content']): Block[] => {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  const blocks: Block[] = [];
  for (const part of content ?? []) {
    if (part.type === 'text' && part.text) blocks.push({ type: 'text', text: part.text });
    const url = part.type === 'image_url' ? imageUrlOf(part) : undefined;
    if (url) blocks.push(imageBlock(url));
  }
  return blocks;
};

const blocksOf = (message: ChatMessage): { role: 'user' | 'assistant'; blocks: Block[] } => {
  if (message.role === 'tool')
    return {
      role: 'user',
      blocks: [
        {
          type: 'tool_result',
          tool_use_id: message.tool_call_id ?? '',
          content: contentText(message.content),
        },
      ],
    };
  if (message.role === 'assistant') {
    const blocks = contentBlocks(message.content);
    for (const call of message.tool_calls ?? [])
      blocks.push({
        type: 'tool_use',
        id: call.id,
        name: call.function.name,
        input: parseArguments(call.function.arguments),
      });
    return { role: 'assistant', blocks };
  }
  return { role: 'user', blocks: contentBlocks(message.content) };
};

/** Messages as Anthropic wants them: roles alternate, so consecutive same-role messages merge. */
const messagesOf = (messages: readonly ChatMessage[]): AnthropicMessage[] => {
  const out: AnthropicMessage[] = [];
  for (const message of messages) {
    if (isSystemRole(message.role)) continue;
    const { role, blocks } = blocksOf(message);
    if (blocks.length === 0) continue;
    const last = out.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  }
  return out;
};

const toolChoiceOf = (request: ChatRequest): Block | undefined => {
  const choice = request.tool_choice;
  const parallel = request.parallel_tool_calls === false ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined || choice === null)
    return request.parallel_tool_calls === false && request.tools?.length
      ? { type: 'auto', ...parallel }
      : undefined;
  if (typeof choice === 'string') {
    if (choice === 'none') return { type: 'none' };
    return { type: choice === 'required' || choice === 'any' ? 'any' : 'auto', ...parallel };
  }
  return choice.function?.name
    ? { type: 'tool', name: choice.function.name, ...parallel }
    : { type: 'auto', ...parallel };
};

/** The Messages API body of an OpenAI chat request (one-api §5.3, with the fixes listed there). */
export const anthropicBody = (
  body: Record<string, unknown>,
  model: string,
  stream: boolean,
): Record<string, unknown> => {
  const request = readChatRequest(body);
  const system = request.messages
    .filter((message) => isSystemRole(message.role))
    .map((message) => contentText(message.content))
    .filter((text) => text !== '')
    .join('\n');
  const tools = (request.tools ?? []).map((tool) => ({
    name: tool.function.name,
    ...(tool.function.description ? { description: tool.function.description } : {}),
    input_schema: tool.function.parameters ?? { type: 'object', properties: {} },
  }));
  const toolChoice = tools.length > 0 ? toolChoiceOf(request) : undefined;
  const stops = stopList(request.stop);
  const out: Record<string, unknown> = {
    model,
    messages: messagesOf(request.messages),
    max_tokens: maxTokensOf(request, ANTHROPIC_DEFAULT_MAX_TOKENS),
  };
  if (system !== '') out['system'] = system;
  if (typeof request.temperature === 'number') out['temperature'] = request.temperature;
  if (typeof request.top_p === 'number') out['top_p'] = request.top_p;
  if (typeof request.top_k === 'number') out['top_k'] = request.top_k;
  if (stops) out['stop_sequences'] = stops;
  if (tools.length > 0) out['tools'] = tools;
  if (toolChoice) out['tool_choice'] = toolChoice;
  if (request.user) out['metadata'] = { user_id: request.user };
  if (stream) out['stream'] = true;
  return out;
};
