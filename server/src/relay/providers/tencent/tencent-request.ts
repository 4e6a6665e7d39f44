import { relayError } from '../../../lib/app-error.js';
import {
  contentText,
  imageUrlOf,
  readChatRequest,
  type ChatMessage,
  type ChatRequest,
  type ChatToolChoice,
} from '../openai-chat-request.js';

type Json = Record<string, unknown>;

/** A message's content: text as `Content`, or text and images as `Contents` (vision models). */
const contentOf = (message: ChatMessage): Json => {
  const content = message.content;
  if (!Array.isArray(content) || !content.some((part) => part.type === 'image_url'))
    return { Content: contentText(content) };
  return {
    Contents: content.flatMap((part): Json[] => {
      if (part.type === 'text' && typeof part.text === 'string') return [{ Type: 'text', Text: part.text }];
      const url = part.type === 'image_url' ? imageUrlOf(part) : undefined;
      return url ? [{ Type: 'image_url', ImageUrl: { Url: url } }] : [];
    }),
  };
};

/** OpenAI's roles as Hunyuan's (developer is system; tool results carry their call's id). */
const messageOf = (message: ChatMessage): Json => {
  const role = message.role === 'developer' ? 'system' : message.role;
  const calls = message.tool_calls ?? [];
  return {
    Role: role,
    ...contentOf(message),
    ...(role === 'tool' && message.tool_call_id ? { ToolCallId: message.tool_call_id } : {}),
    ...(calls.length > 0
      ? {
          ToolCalls: calls.map((call) => ({
            Id: call.id,
            Type: 'function',
            Function: { Name: call.function.name, Arguments: call.function.arguments ?? '{}' },
          })),
        }
      : {}),
  };
};

/** `none`/`auto` as they are; `required` or a named function as Hunyuan's `custom` tool. */
const toolChoiceOf = (choice: ChatToolChoice | null | undefined, request: ChatRequest): Json => {
  if (!choice) return {};
  if (choice === 'none' || choice === 'auto') return { ToolChoice: choice };
  const name = typeof choice === 'string' ? request.tools?.[0]?.function.name : choice.function?.name;
  const tool = request.tools?.find((item) => item.function.name === name);
  if (!tool) return { ToolChoice: 'auto' };
  return {
    ToolChoice: 'custom',
    CustomTool: {
      Type: 'function',
      Function: {
        Name: tool.function.name,
        Parameters: JSON.stringify(tool.function.parameters ?? { type: 'object', properties: {} }),
        ...(tool.function.description ? { Description: tool.function.description } : {}),
      },
    },
  };
};

/**
 * An OpenAI chat body as Hunyuan's ChatCompletions body (API 2023-09-01): `Model`, `Messages` with
 * `Role`/`Content`, `Stream`, `TopP`, `Temperature`, and tools as `Tools` (`Parameters` a JSON
 * string) with `ToolChoice`.
 */
export const tencentChatBody = (body: Json, model: string, stream: boolean): Json => {
  const request = readChatRequest(body);
  const tools = request.tools ?? [];
  return {
    Model: model,
    Messages: request.messages.map(messageOf),
    Stream: stream,
    ...(typeof request.top_p === 'number' ? { TopP: request.top_p } : {}),
    ...(typeof request.temperature === 'number' ? { Temperature: request.temperature } : {}),
    ...(tools.length > 0
      ? {
          Tools: tools.map((tool) => ({
            Type: 'function',
            Function: {
              Name: tool.function.name,
              Parameters: JSON.stringify(tool.function.parameters ?? { type: 'object', properties: {} }),
              ...(tool.function.description ? { Description: tool.function.description } : {}),
            },
          })),
          ...toolChoiceOf(request.tool_choice, request),
        }
      : {}),
  };
};

/** An OpenAI embeddings body as GetEmbedding's: `Input` for one text, `InputList` for several. */
export const tencentEmbeddingBody = (body: Json): Json => {
  const input = body['input'];
  if (typeof input === 'string') return { Input: input };
  if (Array.isArray(input) && input.length > 0 && input.every((item) => typeof item === 'string'))
    return input.length === 1 ? { Input: input[0] } : { InputList: input };
  throw relayError(
    400,
    'convert_request_failed',
    'Hunyuan embeddings need input as a string or a list of strings',
    'invalid_request_error',
  );
};
