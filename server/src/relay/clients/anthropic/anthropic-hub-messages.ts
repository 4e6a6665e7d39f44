import { relayError } from '../../../lib/app-error.js';
import type {
  AnthropicContentBlock,
  AnthropicMessage,
  AnthropicToolResultBlock,
} from './anthropic-request-schema.js';

/** An OpenAI chat content part: text, image_url or file (a PDF as a data URL). */
export type HubPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } }
  | { type: 'file'; file: { filename: string; file_data: string } };

export interface HubToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type HubMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | HubPart[] }
  | { role: 'assistant'; content: string | null; tool_calls?: HubToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

type Block = AnthropicContentBlock;

const misplaced = (path: string, type: string, role: string) =>
  relayError(
    400,
    'invalid_request',
    `${path}: ${type} blocks are not allowed in ${role} messages`,
    'invalid_request_error',
  );

const dataUrl = (mediaType: string, data: string): string => `data:${mediaType};base64,${data}`;

/**
 * A user-side block as a hub part; undefined for the blocks a user turn handles itself (tool
 * results). Search results become text: their title, source and passages.
 */
const partOf = (block: Block): HubPart | undefined => {
  switch (block.type) {
    case 'text':
      return block.text === '' ? undefined : { type: 'text', text: block.text };
    case 'image':
      return {
        type: 'image_url',
        image_url: {
          url:
            block.source.type === 'base64'
              ? dataUrl(block.source.media_type, block.source.data)
              : block.source.url,
        },
      };
    case 'document':
      return block.source.type === 'text'
        ? { type: 'text', text: block.source.data }
        : {
            type: 'file',
            file: {
              filename: block.title || 'document.pdf',
              file_data: dataUrl(block.source.media_type, block.source.data),
            },
          };
    case 'search_result': {
      const lines = [block.title, block.source, ...block.content.map((item) => item.text)];
      return { type: 'text', text: lines.filter((line) => line).join('\n') };
    }
    default:
      return undefined;
  }
};

/** Parts that are all text become one string (what every OpenAI-compatible upstream takes). */
const userContent = (parts: HubPart[]): string | HubPart[] =>
  parts.every((part) => part.type === 'text')
    ? parts.map((part) => (part.type === 'text' ? part.text : '')).join('\n')
    : parts;

/**
 * A tool result as a tool message. Its text parts are the message; its images and PDFs cannot be in
 * a tool message, so each leaves an `[image]` or `[document]` marker there and goes to the user
 * message that follows the turn's tool messages (`media`).
 */
const toolMessage = (block: AnthropicToolResultBlock, media: HubPart[]): HubMessage => {
  const texts: string[] = [];
  for (const item of block.content ?? []) {
    const part = partOf(item);
    if (part === undefined) continue;
    if (part.type === 'text') texts.push(part.text);
    else {
      texts.push(part.type === 'image_url' ? '[image]' : '[document]');
      media.push(part);
    }
  }
  return { role: 'tool', tool_call_id: block.tool_use_id, content: texts.join('\n') };
};

/** A user turn: its tool results first (tool messages), then one user message with the rest. */
const userMessages = (blocks: Block[], path: string, out: HubMessage[]): void => {
  const media: HubPart[] = [];
  const parts: HubPart[] = [];
  let results = 0;
  blocks.forEach((block, index) => {
    if (block.type === 'tool_result') {
      out.push(toolMessage(block, media));
      results += 1;
      return;
    }
    if (block.type === 'tool_use' || block.type === 'thinking' || block.type === 'redacted_thinking')
      throw misplaced(`${path}.content.${index}`, block.type, 'user');
    const part = partOf(block);
    if (part) parts.push(part);
  });
  const rest = [...media, ...parts];
  if (rest.length > 0 || results === 0) out.push({ role: 'user', content: userContent(rest) });
};

/** An assistant turn: its text, its tool calls; thinking blocks dropped (only Anthropic reads them). */
const assistantMessage = (blocks: Block[], path: string, out: HubMessage[]): void => {
  const texts: string[] = [];
  const calls: HubToolCall[] = [];
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      if (block.text !== '') texts.push(block.text);
    } else if (block.type === 'tool_use')
      calls.push({
        id: block.id,
        type: 'function',
        function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
      });
    else if (block.type !== 'thinking' && block.type !== 'redacted_thinking')
      throw misplaced(`${path}.content.${index}`, block.type, 'assistant');
  });
  const content = texts.length > 0 ? texts.join('\n') : null;
  if (calls.length > 0) out.push({ role: 'assistant', content, tool_calls: calls });
  else if (content !== null) out.push({ role: 'assistant', content });
};

const systemText = (blocks: Block[]): string =>
  blocks.map((block) => (block.type === 'text' ? block.text : '')).join('\n');

/** The Messages API's system and messages as hub (OpenAI chat) messages, in order. */
export const hubMessagesOf = (
  system: readonly { text: string }[] | null | undefined,
  messages: readonly AnthropicMessage[],
): HubMessage[] => {
  const out: HubMessage[] = [];
  const instructions = (system ?? []).map((block) => block.text).join('\n');
  if (instructions !== '') out.push({ role: 'system', content: instructions });
  messages.forEach((message, index) => {
    const path = `messages.${index}`;
    if (message.role === 'assistant') assistantMessage(message.content, path, out);
    else if (message.role === 'user') userMessages(message.content, path, out);
    else {
      if (message.content.some((block) => block.type !== 'text'))
        throw misplaced(`${path}.content`, 'non-text', 'system');
      const text = systemText(message.content);
      if (text !== '') out.push({ role: 'system', content: text });
    }
  });
  return out;
};
