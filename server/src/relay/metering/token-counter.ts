import { createRequire } from 'node:module';

type Counter = (text: string) => number;

/**
 * The BPE tables weigh ~90 MB and take ~300 ms to load, and the relay needs them only when an
 * upstream gives no usage: each encoding is loaded on its first use.
 */
const load = (() => {
  const require = createRequire(import.meta.url);
  const loaded = new Map<string, Counter>();
  return (encoding: 'cl100k_base' | 'o200k_base'): Counter => {
    let counter = loaded.get(encoding);
    if (!counter) {
      counter = (require(`gpt-tokenizer/encoding/${encoding}`) as { countTokens: Counter }).countTokens;
      loaded.set(encoding, counter);
    }
    return counter;
  };
})();

const countCl100k: Counter = (text) => load('cl100k_base')(text);
const countO200k: Counter = (text) => load('o200k_base')(text);

/**
 * Every BPE tokenizer is super-linear on long unbroken runs, so text is counted in pieces of at most
 * this many characters, cut at white space where there is some.
 */
const PIECE = 2048;

const encoderFor = (model: string): ((text: string) => number) =>
  /^(gpt-4o|gpt-4\.1|o\d|chatgpt-4o|gpt-5)/.test(model) ? countO200k : countCl100k;

export const countTextTokens = (text: string, model: string, approximate = false): number => {
  if (text === '') return 0;
  if (approximate) return Math.ceil(Buffer.byteLength(text) * 0.38);
  const count = encoderFor(model);
  if (text.length <= PIECE) return count(text);
  let total = 0;
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + PIECE, text.length);
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      if (space > start + PIECE / 2) end = space;
    }
    total += count(text.slice(start, end));
    start = end;
  }
  return total;
};

interface ChatPart {
  type?: unknown;
  text?: unknown;
  image_url?: unknown;
}

/** Prompt tokens of a chat request, by OpenAI's counting rules (images by their detail level). */
export const countChatTokens = (messages: readonly unknown[], model: string, approximate = false): number => {
  let total = 3;
  for (const raw of messages) {
    if (typeof raw !== 'object' || raw === null) continue;
    const message = raw as Record<string, unknown>;
    total += 3;
    if (typeof message['role'] === 'string') total += countTextTokens(message['role'], model, approximate);
    if (typeof message['name'] === 'string')
      total += 1 + countTextTokens(message['name'], model, approximate);
    const content = message['content'];
    if (typeof content === 'string') total += countTextTokens(content, model, approximate);
    else if (Array.isArray(content))
      for (const part of content as ChatPart[]) {
        if (part.type === 'text' && typeof part.text === 'string')
          total += countTextTokens(part.text, model, approximate);
        if (part.type === 'image_url') {
          const detail = (part.image_url as { detail?: unknown } | undefined)?.detail;
          total += detail === 'low' ? 85 : 765;
        }
      }
    const calls = message['tool_calls'];
    if (Array.isArray(calls)) total += countTextTokens(JSON.stringify(calls), model, approximate);
  }
  return total;
};

/** Text of a `prompt` / `input` field (string, list of strings), for completions and moderations. */
export const inputText = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : Array.isArray(value)
      ? value.filter((item) => typeof item === 'string').join('\n')
      : '';
