import { geminiInvalid, geminiUnsupported, type GeminiContent, type GeminiPart } from './gemini-wire.js';

/**
 * Gemini's `contents` as the hub's (OpenAI chat) messages:
 * - a `model` turn is one assistant message: its text parts joined, its functionCall parts as
 *   tool_calls; thought parts are dropped and thought signatures ignored (no other provider reads them);
 * - a `user` turn (or the legacy `function` / `tool` role) is first one `tool` message per
 *   functionResponse part (OpenAI wants them right after the calls), then one user message with the
 *   rest: text, images (data URLs or URLs), PDFs (`file` parts), text files (as text), and the media of
 *   multimodal function responses.
 * Call ids: a functionCall's own id (40 characters at most, OpenAI's limit), else `call_<n>`, counted
 * through the request. A functionResponse takes the unanswered call with its id, else the first
 * unanswered call of its name: Gemini's calls often carry no id, and Gemini CLI answers them with ids
 * of its own.
 */
type Message = Record<string, unknown>;
type ContentPart = Record<string, unknown>;

interface Call {
  readonly clientId: string | undefined;
  readonly id: string;
  readonly name: string;
  answered: boolean;
}

interface Calls {
  readonly list: Call[];
  next: number;
}

const MAX_ID = 40;

const IMAGE = /^image\/(png|jpeg|jpg|webp|gif|heic|heif)$/i;
const TEXT = /^(text\/[a-z0-9.+-]+|application\/(json|xml|x-javascript|x-python|x-typescript))$/i;

const freshId = (calls: Calls): string => `call_${calls.next++}`;

const callOf = (part: NonNullable<GeminiPart['functionCall']>, calls: Calls): Record<string, unknown> => {
  const clientId = part.id || undefined;
  const id = clientId && clientId.length <= MAX_ID ? clientId : freshId(calls);
  calls.list.push({ clientId, id, name: part.name, answered: false });
  return { id, type: 'function', function: { name: part.name, arguments: JSON.stringify(part.args ?? {}) } };
};

const answerOf = (response: NonNullable<GeminiPart['functionResponse']>, calls: Calls): string => {
  const open = calls.list.filter((call) => !call.answered);
  const call =
    (response.id ? open.find((item) => item.clientId === response.id) : undefined) ??
    open.find((item) => item.name === response.name);
  if (!call) return response.id && response.id.length <= MAX_ID ? response.id : freshId(calls);
  call.answered = true;
  return call.id;
};

/** inlineData as an OpenAI content part: image → image_url, PDF → file, text → text; else 400. */
const inlinePart = (data: { mimeType: string; data: string }, path: string): ContentPart => {
  const mime = data.mimeType.toLowerCase();
  const url = `data:${mime};base64,${data.data}`;
  if (IMAGE.test(mime)) return { type: 'image_url', image_url: { url } };
  if (mime === 'application/pdf') return { type: 'file', file: { filename: 'document.pdf', file_data: url } };
  if (TEXT.test(mime)) return { type: 'text', text: Buffer.from(data.data, 'base64').toString('utf8') };
  throw geminiUnsupported(`${path}.mimeType: ${data.mimeType} is not supported (images, PDFs and text only)`);
};

/** fileData: an image URL the model can fetch; any other file cannot be passed on. */
const filePart = (data: { mimeType?: string | undefined; fileUri: string }, path: string): ContentPart => {
  if (data.mimeType && IMAGE.test(data.mimeType))
    return { type: 'image_url', image_url: { url: data.fileUri } };
  throw geminiUnsupported(
    `${path}.mimeType: fileData of type ${data.mimeType ?? 'unknown'} is not supported (images only)`,
  );
};

/** Keys a part may carry besides its payload. */
const PART_METADATA = new Set([
  'thought',
  'thoughtSignature',
  'videoMetadata',
  'mediaResolution',
  'partMetadata',
]);

/** A part with no payload this format reads (executableCode, codeExecutionResult, …) is refused by name. */
const refuseUnknown = (part: GeminiPart, path: string): void => {
  const key = Object.keys(part).find((name) => !PART_METADATA.has(name) && part[name] != null);
  if (key !== undefined) throw geminiUnsupported(`${path}.${key}: this part is not supported`);
};

const assistantMessage = (parts: readonly GeminiPart[], path: string, calls: Calls): Message | undefined => {
  let text = '';
  const toolCalls: Record<string, unknown>[] = [];
  parts.forEach((part, index) => {
    const at = `${path}.parts.${index}`;
    if (part.thought === true) return;
    if (part.functionCall) toolCalls.push(callOf(part.functionCall, calls));
    else if (typeof part.text === 'string') text += part.text;
    else if (part.inlineData || part.fileData || part.functionResponse)
      throw geminiUnsupported(`${at}: a model turn carries text and functionCall parts only`);
    else refuseUnknown(part, at);
  });
  if (text === '' && toolCalls.length === 0) return undefined;
  return {
    role: 'assistant',
    content: text === '' ? null : text,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  };
};

const userMessages = (parts: readonly GeminiPart[], path: string, calls: Calls): Message[] => {
  const out: Message[] = [];
  const content: ContentPart[] = [];
  parts.forEach((part, index) => {
    const at = `${path}.parts.${index}`;
    if (part.thought === true) return;
    if (part.functionResponse) {
      const response = part.functionResponse;
      out.push({
        role: 'tool',
        tool_call_id: answerOf(response, calls),
        content: JSON.stringify(response.response ?? {}),
      });
      (response.parts ?? []).forEach((media, position) => {
        if (media.inlineData)
          content.push(inlinePart(media.inlineData, `${at}.functionResponse.parts.${position}.inlineData`));
      });
    } else if (typeof part.text === 'string') {
      if (part.text !== '') content.push({ type: 'text', text: part.text });
    } else if (part.inlineData) content.push(inlinePart(part.inlineData, `${at}.inlineData`));
    else if (part.fileData) content.push(filePart(part.fileData, `${at}.fileData`));
    else if (part.functionCall)
      throw geminiInvalid(`${at}.functionCall: function calls belong in model turns`);
    else refuseUnknown(part, at);
  });
  if (content.length === 1 && content[0]?.['type'] === 'text')
    out.push({ role: 'user', content: content[0]['text'] });
  else if (content.length > 0) out.push({ role: 'user', content });
  return out;
};

/** The hub's messages of Gemini's contents (the system instruction comes first, from the caller). */
export const geminiMessages = (contents: readonly GeminiContent[]): Message[] => {
  const calls: Calls = { list: [], next: 0 };
  const out: Message[] = [];
  contents.forEach((content, index) => {
    const path = `contents.${index}`;
    const role = content.role || 'user';
    if (role === 'model') {
      const message = assistantMessage(content.parts, path, calls);
      if (message) out.push(message);
    } else if (role === 'user' || role === 'function' || role === 'tool')
      out.push(...userMessages(content.parts, path, calls));
    else throw geminiInvalid(`${path}.role: must be user or model, not ${role}`);
  });
  return out;
};

/** The system instruction's text (its text parts joined with newlines); other parts are refused. */
export const geminiSystemText = (instruction: GeminiContent): string =>
  instruction.parts
    .map((part, index) => {
      if (typeof part.text === 'string') return part.text;
      if (part.thought === true) return '';
      throw geminiUnsupported(`systemInstruction.parts.${index}: only text parts are supported`);
    })
    .filter((text) => text !== '')
    .join('\n');
