import { parseJson } from '@sluice/contract/parse-json';
import type { NativeFormat, NativeStreamStep, RelayRequestMeta, SseEvent } from '../adaptor.js';
import { geminiVersionOf } from './gemini-defaults.js';
import { geminiResponse, geminiUsage, parseGeminiError } from './gemini-response.js';

/** The text of a response's candidates (thoughts and calls included), for local counting. */
const textOf = (body: unknown): string => {
  const parsed = geminiResponse.safeParse(body);
  if (!parsed.success) return '';
  let text = '';
  for (const candidate of parsed.data.candidates)
    for (const part of candidate.content?.parts ?? []) {
      if (typeof part.text === 'string') text += part.text;
      if (part.functionCall) text += part.functionCall.name + JSON.stringify(part.functionCall.args ?? {});
    }
  return text;
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** One Gemini stream's reader: every event is a GenerateContentResponse (usage is cumulative). */
const geminiTap = (): ((event: SseEvent) => NativeStreamStep) => (event) => {
  const data = parseJson(event.data);
  if (!isObject(data)) return { opening: 'refuse' };
  if (isObject(data['error'])) {
    const error = parseGeminiError(data);
    return error ? { opening: 'refuse', error } : { opening: 'refuse' };
  }
  if (!Array.isArray(data['candidates']) && !isObject(data['usageMetadata'])) return { opening: 'wait' };
  const parsed = geminiResponse.safeParse(data);
  const usage = parsed.success ? geminiUsage(parsed.data) : undefined;
  // Each event's usage is the stream's so far; the one that finishes a candidate is the answer's.
  const final = parsed.success && parsed.data.candidates.some((candidate) => candidate.finishReason);
  return { opening: 'open', text: textOf(data), ...(usage ? { usage, final } : {}) };
};

/**
 * Gemini's own API spoken by the client: the body goes to `<base>/<version>/models/<model>:
 * generateContent` (streams `:streamGenerateContent?alt=sse`) as it came, the model (named in the
 * path) the one the channel maps to, with the channel's key in `x-goog-api-key`.
 */
export const geminiNative: NativeFormat = {
  format: 'gemini',
  buildRequest: (_body, raw, meta: RelayRequestMeta) => {
    const version = geminiVersionOf(meta);
    const action = meta.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
    return {
      url: `${meta.channel.baseUrl}/${version}/models/${encodeURIComponent(meta.model)}:${action}`,
      headers: {
        'x-goog-api-key': meta.channel.key,
        'content-type': 'application/json',
        ...(meta.stream ? { accept: 'text/event-stream' } : {}),
      },
      body: raw,
    };
  },
  readAnswer: (body) => {
    const parsed = geminiResponse.safeParse(body);
    const usage = parsed.success ? geminiUsage(parsed.data) : undefined;
    return usage ? { usage, text: textOf(body) } : { text: textOf(body) };
  },
  streamTap: geminiTap,
  eventText: (data) => textOf(parseJson(data)),
};
