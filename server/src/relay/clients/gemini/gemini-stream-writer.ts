import type { UpstreamErrorInfo } from '../../providers/adaptor.js';
import type { ClientContext, ClientStreamWriter } from '../client-format.js';
import { geminiStreamError } from './gemini-error-body.js';
import {
  functionCallPart,
  geminiFinishReason,
  geminiUsageMetadata,
  reasoningOf,
  responseIdOf,
  wantsThoughts,
} from './gemini-from-hub.js';

/**
 * The hub's `chat.completion.chunk`s as Gemini's server-sent events (`:streamGenerateContent?alt=sse`),
 * one GenerateContentResponse per event, as Google sends them (`data: …\r\n\r\n`):
 * - text and thought deltas go out at once, one event per chunk that carries any;
 * - function calls go out whole (Gemini never streams a call's arguments): their pieces are gathered
 *   until the end, then sent in the last event;
 * - the last event carries the calls, `finishReason` and `usageMetadata`: it is sent as soon as both
 *   the finish and the usage are known (OpenAI sends the usage in a chunk of its own after the finish),
 *   else at `end()`;
 * - an error mid-stream is one `{error: {code, message, status}}` event, which @google/genai throws.
 * Nothing is sent after the last event or the error. Chunks are read by hand, not with zod: this runs
 * for every token.
 */
type Json = Record<string, unknown>;

interface PendingCall {
  id: string;
  name: string;
  args: string;
}

const event = (payload: object): string => `data: ${JSON.stringify(payload)}\r\n\r\n`;

const objectOf = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null ? (value as Json) : undefined;

export const geminiStreamWriter = (context: ClientContext): ClientStreamWriter => {
  const thoughts = wantsThoughts(context.request);
  const calls = new Map<number, PendingCall>();
  let responseId = '';
  let finish: unknown = null;
  let usage: Json | undefined;
  let over = false;

  const response = (candidate: Json, last: boolean): Json => {
    const metadata = last ? geminiUsageMetadata(usage) : undefined;
    return {
      candidates: [candidate],
      ...(metadata ? { usageMetadata: metadata } : {}),
      modelVersion: context.model,
      responseId: responseId || context.requestId,
    };
  };

  /** The last event: the gathered calls, the finish and the usage. */
  const last = (): string => {
    over = true;
    const parts: Json[] = [];
    for (const call of calls.values())
      if (call.name !== '') parts.push(functionCallPart(call.id, call.name, call.args));
    const candidate = {
      content: { parts, role: 'model' },
      finishReason: geminiFinishReason(finish),
      index: 0,
    };
    return event(response(candidate, true));
  };

  const gather = (deltas: unknown[]): void => {
    for (let position = 0; position < deltas.length; position++) {
      const delta = objectOf(deltas[position]);
      if (!delta) continue;
      const index = typeof delta['index'] === 'number' ? delta['index'] : position;
      let call = calls.get(index);
      if (!call) {
        call = { id: '', name: '', args: '' };
        calls.set(index, call);
      }
      if (typeof delta['id'] === 'string' && delta['id'] !== '') call.id = delta['id'];
      const fn = objectOf(delta['function']);
      if (!fn) continue;
      if (typeof fn['name'] === 'string' && call.name === '') call.name = fn['name'];
      if (typeof fn['arguments'] === 'string') call.args += fn['arguments'];
    }
  };

  const chunk = (hub: Readonly<Json>): string => {
    if (over) return '';
    if (responseId === '') responseId = responseIdOf(hub['id'], context);
    const hubUsage = objectOf(hub['usage']);
    if (hubUsage) usage = hubUsage;
    const choices = hub['choices'];
    const choice = Array.isArray(choices) ? objectOf(choices[0]) : undefined;
    let out = '';
    if (choice) {
      const delta = objectOf(choice['delta']);
      if (delta) {
        const parts: Json[] = [];
        const reasoning = thoughts ? reasoningOf(delta) : '';
        if (reasoning !== '') parts.push({ text: reasoning, thought: true });
        const content = delta['content'];
        if (typeof content === 'string' && content !== '') parts.push({ text: content });
        if (Array.isArray(delta['tool_calls'])) gather(delta['tool_calls']);
        if (parts.length > 0) out = event(response({ content: { parts, role: 'model' }, index: 0 }, false));
      }
      if (choice['finish_reason'] != null) finish = choice['finish_reason'];
    }
    if (finish !== null && usage !== undefined) out += last();
    return out;
  };

  return {
    chunk,
    end: () => (over ? '' : last()),
    error: (error: UpstreamErrorInfo) => {
      if (over) return '';
      over = true;
      return event(geminiStreamError(error));
    },
  };
};
