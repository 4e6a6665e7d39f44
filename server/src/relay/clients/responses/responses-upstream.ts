import { readRecord, readString, type JsonRecord } from './read-record.js';
import { statefulFieldOf } from './responses-request.js';
import { isDroppedToolType } from './responses-tools.js';

/**
 * Which channels can answer a Responses API body, for the wiring (plain reads, no zod; the body need
 * not be valid: `toHub` judges that).
 *
 * `needsResponsesUpstream` names the first field that only an upstream serving the Responses API
 * itself can honour; for such a body `toHub` throws its 400 (naming the same field), so the wiring
 * sends it to such an upstream or answers that 400. `preferResponsesUpstream` names a field the hub
 * form drops and such an upstream would honour (hosted web search, OpenAI's encrypted reasoning):
 * the body translates, but a Responses upstream answers it better.
 */
const TRANSLATED_TOOLS = new Set(['function', 'custom', 'namespace']);
const TRANSLATED_ITEMS = new Set([
  'message',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'additional_tools',
  'reasoning',
  'web_search_call',
]);

const list = (value: unknown): readonly unknown[] => (Array.isArray(value) ? value : []);
const typeOf = (value: unknown): string | undefined => readString(readRecord(value)?.['type']);

/** A part only OpenAI can read: an uploaded file's id, or a file to fetch by URL. */
const isStoredPart = (value: unknown): boolean => {
  const part = readRecord(value);
  if (!part) return false;
  if (part['type'] === 'input_image') return typeof part['file_id'] === 'string' && part['file_id'] !== '';
  if (part['type'] === 'input_file')
    return (typeof part['file_id'] === 'string' && part['file_id'] !== '') || part['file_url'] !== undefined;
  return false;
};

const toolField = (tools: unknown, path: string): string | undefined => {
  const entries = list(tools);
  for (let index = 0; index < entries.length; index += 1) {
    const type = typeOf(entries[index]);
    if (type === undefined) continue;
    if (!TRANSLATED_TOOLS.has(type) && !isDroppedToolType(type)) return `${path}.${index}`;
  }
  return undefined;
};

const choiceField = (body: JsonRecord): string | undefined => {
  const choice = body['tool_choice'];
  if (choice === 'required') {
    const types = list(body['tools']).map(typeOf);
    const offersOwn = types.some((type) => type !== undefined && TRANSLATED_TOOLS.has(type));
    return !offersOwn && types.some((type) => type !== undefined && isDroppedToolType(type))
      ? 'tool_choice'
      : undefined;
  }
  const type = typeOf(choice);
  if (type === undefined || type === 'function' || type === 'custom') return undefined;
  if (type !== 'allowed_tools') return 'tool_choice';
  const allowed = list(readRecord(choice)?.['tools']).map(typeOf);
  const own = (entry: string | undefined) => entry === 'function' || entry === 'custom';
  const search = (entry: string | undefined) => entry !== undefined && isDroppedToolType(entry);
  if (allowed.some((entry) => !own(entry) && !search(entry))) return 'tool_choice';
  const required = readRecord(choice)?.['mode'] === 'required';
  return required && allowed.length > 0 && allowed.every(search) ? 'tool_choice' : undefined;
};

const inputField = (input: unknown): string | undefined => {
  const items = list(input);
  for (let index = 0; index < items.length; index += 1) {
    const item = readRecord(items[index]);
    if (!item) continue;
    const type = readString(item['type']) ?? 'message';
    if (!TRANSLATED_ITEMS.has(type)) return `input.${index}`;
    const parts = type === 'message' ? item['content'] : item['output'];
    const at = list(parts).findIndex(isStoredPart);
    if (at !== -1) return `input.${index}.${type === 'message' ? 'content' : 'output'}.${at}`;
    if (type === 'additional_tools') {
      const field = toolField(item['tools'], `input.${index}.tools`);
      if (field) return field;
    }
  }
  return undefined;
};

/** The first field only an upstream serving the Responses API itself can honour, or undefined. */
export const needsResponsesUpstream = (body: JsonRecord): string | undefined =>
  statefulFieldOf(body) ??
  toolField(body['tools'], 'tools') ??
  choiceField(body) ??
  inputField(body['input']);

/** The first field the hub form drops that an upstream serving the Responses API would honour. */
export const preferResponsesUpstream = (body: JsonRecord): string | undefined => {
  const tools = list(body['tools']);
  const tool = tools.findIndex((entry) => {
    const type = typeOf(entry);
    return type !== undefined && isDroppedToolType(type);
  });
  if (tool !== -1) return `tools.${tool}`;
  const items = list(body['input']);
  const item = items.findIndex((entry) => {
    const record = readRecord(entry);
    return record?.['type'] === 'reasoning' && typeof record['encrypted_content'] === 'string';
  });
  return item !== -1 ? `input.${item}` : undefined;
};
