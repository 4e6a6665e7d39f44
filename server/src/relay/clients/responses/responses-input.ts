import {
  additionalToolsItem,
  audioPart,
  customToolCallItem,
  filePart,
  functionCallItem,
  imagePart,
  invalidRequest,
  messageItem,
  readAs,
  refusalPart,
  textPart,
  toolOutputItem,
  responsesOnly,
  type ResponsesRequest,
} from './responses-schema.js';
import { CUSTOM_TOOL_INPUT, hubToolName } from './responses-tools.js';

/**
 * `input` into the hub's messages. Messages keep their role (`developer` becomes `system`, the role
 * every provider knows); `function_call` and `custom_tool_call` items become an assistant message's
 * `tool_calls` (consecutive calls in one message, joined to the assistant text right before them);
 * their outputs become `tool` messages. Images and files in a tool's output cannot ride in a `tool`
 * message, so they follow the run of tool messages in one user message. `reasoning` items (and the
 * records of hosted web searches) mean something only to OpenAI and are dropped.
 */
export interface HubToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

export interface HubMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content?: unknown;
  tool_calls?: HubToolCall[];
  tool_call_id?: string;
}

export interface InputTranslation {
  readonly messages: HubMessage[];
  /** Tools offered by `additional_tools` items, with the path of each list. */
  readonly extraTools: { readonly tools: readonly { type: string }[]; readonly path: string }[];
}

type Parts = readonly { type: string }[];

const isText = (type: string) => type === 'input_text' || type === 'output_text' || type === 'text';

/** An image part into the hub's `image_url` part. */
const imageOf = (part: { type: string }, path: string) => {
  const read = readAs(imagePart, part, path);
  if (read.file_id)
    throw responsesOnly(
      `${path}.file_id: files uploaded to OpenAI cannot be read through this channel; send image_url (a data URL or an https URL)`,
    );
  if (!read.image_url) throw invalidRequest(`${path}.image_url: required`);
  const detail =
    read.detail === 'low' || read.detail === 'high' || read.detail === 'auto' ? read.detail : undefined;
  return { type: 'image_url', image_url: { url: read.image_url, ...(detail ? { detail } : {}) } };
};

/** A file part into the hub's `file` part (OpenAI chat's: file_data and filename). */
const fileOf = (part: { type: string }, path: string) => {
  const read = readAs(filePart, part, path);
  if (read.file_id)
    throw responsesOnly(
      `${path}.file_id: files uploaded to OpenAI cannot be read through this channel; send file_data`,
    );
  if (read.file_url !== undefined)
    throw responsesOnly(`${path}.file_url: files are not fetched through this channel; send file_data`);
  if (!read.file_data) throw invalidRequest(`${path}.file_data: required`);
  return {
    type: 'file',
    file: { file_data: read.file_data, ...(read.filename ? { filename: read.filename } : {}) },
  };
};

/** A user message's content: a string stays one; parts become the hub's text, image, file and audio parts. */
const userContent = (content: string | Parts, path: string): unknown => {
  if (typeof content === 'string') return content;
  return content.map((part, index) => {
    const at = `${path}.content.${index}`;
    if (isText(part.type)) return { type: 'text', text: readAs(textPart, part, at).text };
    if (part.type === 'input_image') return imageOf(part, at);
    if (part.type === 'input_file') return fileOf(part, at);
    if (part.type === 'input_audio')
      return { type: 'input_audio', input_audio: readAs(audioPart, part, at).input_audio };
    throw invalidRequest(`${at}.type: unsupported content part '${part.type}'`);
  });
};

/** The text of a system, developer or assistant message (these take text only). */
const textContent = (content: string | Parts, path: string, role: string, separator: string): string => {
  if (typeof content === 'string') return content;
  return content
    .map((part, index) => {
      const at = `${path}.content.${index}`;
      if (isText(part.type)) return readAs(textPart, part, at).text;
      if (part.type === 'refusal' && role === 'assistant') return readAs(refusalPart, part, at).refusal;
      throw invalidRequest(`${at}.type: a ${role} message takes text only, not '${part.type}'`);
    })
    .join(separator);
};

const HOSTED_RECORDS = new Set(['reasoning', 'web_search_call']);

/** Reads `input` (a string, or items) into the hub's messages. */
export const inputToMessages = (input: ResponsesRequest['input']): InputTranslation => {
  if (typeof input === 'string') return { messages: [{ role: 'user', content: input }], extraTools: [] };
  const messages: HubMessage[] = [];
  const extraTools: InputTranslation['extraTools'] = [];
  let attachments: unknown[] = [];

  const flushAttachments = () => {
    if (attachments.length === 0) return;
    messages.push({ role: 'user', content: attachments });
    attachments = [];
  };
  const lastAssistant = () => {
    const last = messages.at(-1);
    return last?.role === 'assistant' ? last : undefined;
  };
  const addAssistantText = (text: string) => {
    if (text === '') return;
    const last = lastAssistant();
    if (last?.tool_calls) last.content = typeof last.content === 'string' ? last.content + text : text;
    else messages.push({ role: 'assistant', content: text });
  };
  const addCall = (id: string, name: string, args: string) => {
    const call: HubToolCall = { id, type: 'function', function: { name, arguments: args } };
    const last = lastAssistant();
    if (last) (last.tool_calls ??= []).push(call);
    else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
  };
  const addOutput = (callId: string, output: string | Parts, path: string) => {
    if (typeof output === 'string') {
      messages.push({ role: 'tool', tool_call_id: callId, content: output });
      return;
    }
    const texts: string[] = [];
    const attached: unknown[] = [];
    output.forEach((part, index) => {
      const at = `${path}.output.${index}`;
      if (isText(part.type)) texts.push(readAs(textPart, part, at).text);
      else if (part.type === 'input_image') attached.push(imageOf(part, at));
      else if (part.type === 'input_file') attached.push(fileOf(part, at));
      else if (part.type !== 'encrypted_content')
        throw invalidRequest(`${at}.type: unsupported output part '${part.type}'`);
    });
    const text = texts.join('\n');
    messages.push({
      role: 'tool',
      tool_call_id: callId,
      content: text !== '' || attached.length === 0 ? text : 'The output is attached in the next message.',
    });
    if (attached.length > 0)
      attachments.push({ type: 'text', text: `Output of call ${callId}:` }, ...attached);
  };

  input.forEach((item, index) => {
    const path = `input.${index}`;
    const type = item.type ?? 'message';
    if (type !== 'function_call_output' && type !== 'custom_tool_call_output') flushAttachments();
    switch (type) {
      case 'message': {
        const message = readAs(messageItem, item, path);
        if (message.role === 'user')
          messages.push({ role: 'user', content: userContent(message.content, path) });
        else if (message.role === 'assistant')
          addAssistantText(textContent(message.content, path, 'assistant', ''));
        else
          messages.push({ role: 'system', content: textContent(message.content, path, message.role, '\n') });
        return;
      }
      case 'function_call': {
        const call = readAs(functionCallItem, item, path);
        addCall(call.call_id, hubToolName(call.name, call.namespace), call.arguments);
        return;
      }
      case 'custom_tool_call': {
        const call = readAs(customToolCallItem, item, path);
        addCall(
          call.call_id,
          hubToolName(call.name, call.namespace),
          JSON.stringify({ [CUSTOM_TOOL_INPUT]: call.input }),
        );
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const output = readAs(toolOutputItem, item, path);
        addOutput(output.call_id, output.output, path);
        return;
      }
      case 'additional_tools':
        extraTools.push({ tools: readAs(additionalToolsItem, item, path).tools, path: `${path}.tools` });
        return;
      case 'item_reference':
        throw responsesOnly(
          `${path}: item_reference needs stored responses, and Sluice keeps none; send the item itself`,
        );
      case 'compaction':
        throw responsesOnly(
          `${path}: a compaction item holds context only OpenAI can read; it needs an upstream that serves the Responses API itself`,
        );
      default:
        if (HOSTED_RECORDS.has(type)) return;
        throw responsesOnly(`${path}.type: '${type}' items are not supported through this channel`);
    }
  });
  flushAttachments();
  return { messages, extraTools };
};
