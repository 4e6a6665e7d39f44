import type { Adaptor, ChannelMeta, RelayMode, RelayRequestMeta, StreamStep, Usage } from './adaptor.js';
import { parseOpenAiStyleError } from './openai-errors.js';

const ALL_MODES: readonly RelayMode[] = [
  'chat',
  'completions',
  'embeddings',
  'moderations',
  'images',
  'speech',
  'transcription',
  'translation',
];

const readUsage = (value: unknown): Usage | undefined => {
  if (typeof value !== 'object' || value === null) return undefined;
  const usage = value as Record<string, unknown>;
  const prompt = Number(usage['prompt_tokens'] ?? usage['input_tokens'] ?? 0) || 0;
  const completion = Number(usage['completion_tokens'] ?? usage['output_tokens'] ?? 0) || 0;
  const total = Number(usage['total_tokens'] ?? prompt + completion) || prompt + completion;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: total };
};

/** Text of every choice (chat message, completion text or stream delta), for local counting. */
export const choiceText = (body: unknown): string => {
  if (typeof body !== 'object' || body === null) return '';
  const choices = (body as { choices?: unknown }).choices;
  if (!Array.isArray(choices)) return '';
  let out = '';
  for (const choice of choices as Record<string, unknown>[]) {
    const message = (choice['message'] ?? choice['delta']) as Record<string, unknown> | undefined;
    if (typeof choice['text'] === 'string') out += choice['text'];
    if (message && typeof message['content'] === 'string') out += message['content'];
    const calls = message?.['tool_calls'];
    if (Array.isArray(calls))
      for (const call of calls as { function?: { name?: unknown; arguments?: unknown } }[]) {
        if (typeof call.function?.name === 'string') out += call.function.name;
        if (typeof call.function?.arguments === 'string') out += call.function.arguments;
      }
  }
  return out;
};

/** How an OpenAI-compatible provider builds its URL: the base URL and the client's path. */
export type UrlBuilder = (channel: ChannelMeta, path: string, mode: RelayMode) => string;

export const defaultUrl: UrlBuilder = (channel, path) => `${channel.baseUrl}${path}`;

/** Asks for usage on streams (and strips nothing: the pipeline strips it for clients that did not ask). */
export const openAiBody = (body: Record<string, unknown>, meta: RelayRequestMeta): string => {
  const out: Record<string, unknown> = { ...body, model: meta.model };
  if (meta.stream && (meta.mode === 'chat' || meta.mode === 'completions')) {
    const options =
      typeof body['stream_options'] === 'object' && body['stream_options'] !== null
        ? body['stream_options']
        : {};
    out['stream_options'] = { ...options, include_usage: true };
  }
  return JSON.stringify(out);
};

export const parseOpenAiResponse = (body: unknown) => ({
  body,
  usage: readUsage((body as { usage?: unknown } | null)?.usage),
  text: choiceText(body),
});

export const mapOpenAiStreamEvent = (data: string): StreamStep => {
  if (data.trim() === '[DONE]') return { chunks: [], done: true };
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    return { chunks: [] };
  }
  const usage = readUsage((chunk as { usage?: unknown } | null)?.usage);
  return { chunks: [chunk], text: choiceText(chunk), ...(usage && usage.total_tokens > 0 ? { usage } : {}) };
};

/** The OpenAI adaptor; other OpenAI-compatible providers differ only in URL and extra headers. */
export const createOpenAiAdaptor = (
  url: UrlBuilder = defaultUrl,
  extraHeaders: Readonly<Record<string, string>> = {},
  modes: readonly RelayMode[] = ALL_MODES,
): Adaptor => ({
  openAiFormat: true,
  modes,
  buildRequest: (body, meta) => ({
    url: url(meta.channel, meta.path, meta.mode),
    headers: {
      authorization: `Bearer ${meta.channel.key}`,
      'content-type': 'application/json',
      ...extraHeaders,
    },
    body: openAiBody(body, meta),
  }),
  parseResponse: (body) => parseOpenAiResponse(body),
  createStreamState: () => undefined,
  mapStreamEvent: (event) => mapOpenAiStreamEvent(event.data),
  parseError: parseOpenAiStyleError,
});

export { readUsage };
