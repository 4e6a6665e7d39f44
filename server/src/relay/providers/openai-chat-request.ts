import { z } from 'zod';
import { relayError } from '../../lib/app-error.js';
import { describeZodIssue } from '../../lib/zod-issue.js';

/**
 * The parts of an OpenAI chat request that native adaptors translate, parsed once with zod (loose:
 * unknown fields are kept and ignored). Content parts other than text and image_url are ignored.
 */
const contentPart = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  image_url: z.union([z.string(), z.looseObject({ url: z.string() })]).optional(),
});

const toolCall = z.looseObject({
  id: z.string().default(''),
  type: z.string().optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string().nullish() }),
});

const message = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.array(contentPart)]).nullish(),
  name: z.string().nullish(),
  tool_calls: z.array(toolCall).nullish(),
  tool_call_id: z.string().nullish(),
});

const tool = z.looseObject({
  type: z.string().optional(),
  function: z.looseObject({
    name: z.string(),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
  }),
});

const toolChoice = z.union([
  z.string(),
  z.looseObject({ type: z.string().optional(), function: z.looseObject({ name: z.string() }).optional() }),
]);

const number = z.number().nullish();

const chatRequest = z.looseObject({
  messages: z.array(message),
  tools: z.array(tool).nullish(),
  tool_choice: toolChoice.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  max_tokens: number,
  max_completion_tokens: number,
  temperature: number,
  top_p: number,
  top_k: number,
  n: number,
  seed: number,
  presence_penalty: number,
  frequency_penalty: number,
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  response_format: z
    .looseObject({
      type: z.string(),
      json_schema: z.looseObject({ schema: z.record(z.string(), z.unknown()).optional() }).optional(),
    })
    .nullish(),
  user: z.string().nullish(),
});

export type ChatRequest = z.infer<typeof chatRequest>;
export type ChatMessage = z.infer<typeof message>;
export type ChatContentPart = z.infer<typeof contentPart>;
export type ChatTool = z.infer<typeof tool>;
export type ChatToolChoice = z.infer<typeof toolChoice>;

/** Reads the client's chat body; a shape no provider could take is the client's 400. */
export const readChatRequest = (body: Record<string, unknown>): ChatRequest => {
  const result = chatRequest.safeParse(body);
  if (result.success) return result.data;
  throw relayError(
    400,
    'convert_request_failed',
    describeZodIssue(result.error, 'invalid chat request'),
    'invalid_request_error',
  );
};

/** `system` and OpenAI's newer `developer` role both carry instructions. */
export const isSystemRole = (role: string): boolean => role === 'system' || role === 'developer';

/** The text of a message's content: a string, or its text parts joined with newlines. */
export const contentText = (content: ChatMessage['content']): string => {
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text ?? '')
    .join('\n');
};

/** The URL of an image_url part (a string or {url}). */
export const imageUrlOf = (part: ChatContentPart): string | undefined => {
  const value = part.image_url;
  if (typeof value === 'string') return value;
  return value?.url;
};

/** A `data:<mime>;base64,<data>` URL split into its media type and base64 data. */
export const parseDataUrl = (url: string): { mediaType: string; data: string } | undefined => {
  const match = /^data:([^;,]+)((?:;[^;,]+)*);base64,(.*)$/s.exec(url);
  if (!match) return undefined;
  return { mediaType: match[1] ?? 'application/octet-stream', data: match[3] ?? '' };
};

/** `stop` as a list (a string, a list, or nothing). */
export const stopList = (stop: ChatRequest['stop']): string[] | undefined => {
  if (stop === undefined || stop === null) return undefined;
  const list = (typeof stop === 'string' ? [stop] : stop).filter((item) => item !== '');
  return list.length > 0 ? list : undefined;
};

/** Tool call arguments as an object: the parsed JSON, `{}` when empty or not a JSON object. */
export const parseArguments = (text: string | null | undefined): Record<string, unknown> => {
  if (!text) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
};

/** The requested completion limit: max_tokens, else max_completion_tokens, else the fallback. */
export const maxTokensOf = (request: ChatRequest, fallback: number): number =>
  request.max_tokens || request.max_completion_tokens || fallback;
