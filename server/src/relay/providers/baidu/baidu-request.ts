import { relayError } from '../../../lib/app-error.js';
import type { RelayRequestMeta } from '../adaptor.js';
import { readChatRequest, type ChatMessage } from '../openai-chat-request.js';

const textOf = (content: ChatMessage['content']): string => {
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('');
};

const defined = (entries: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined && value !== null));

/**
 * An OpenAI chat body as Wenxin's (v1) chat body: system messages joined into `system`, the others
 * as `{role: user|assistant, content}`; `frequency_penalty` → `penalty_score`, `max_tokens` →
 * `max_output_tokens`, `user` → `user_id` (as one-api).
 */
export const baiduChatBody = (
  body: Record<string, unknown>,
  meta: RelayRequestMeta,
): Record<string, unknown> => {
  const request = readChatRequest(body);
  const system: string[] = [];
  const messages: { role: string; content: string }[] = [];
  for (const message of request.messages) {
    const content = textOf(message.content);
    if (message.role === 'system' || message.role === 'developer') system.push(content);
    else messages.push({ role: message.role === 'assistant' ? 'assistant' : 'user', content });
  }
  const stop = typeof request.stop === 'string' ? [request.stop] : request.stop;
  return defined({
    messages,
    system: system.length > 0 ? system.join('\n') : undefined,
    temperature: request.temperature,
    top_p: request.top_p,
    penalty_score: request.frequency_penalty,
    max_output_tokens: request.max_completion_tokens ?? request.max_tokens,
    stop,
    user_id: request.user,
    stream: meta.stream ? true : undefined,
  });
};

/** An OpenAI embeddings body as Wenxin's: `{input: [strings]}`. */
export const baiduEmbeddingsBody = (body: Record<string, unknown>): Record<string, unknown> => {
  const input = body['input'];
  const inputs = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(inputs) || inputs.length === 0 || !inputs.every((item) => typeof item === 'string'))
    throw relayError(
      400,
      'convert_request_failed',
      'Baidu embeddings need input as a string or a list of strings',
      'invalid_request_error',
    );
  return defined({ input: inputs, user_id: typeof body['user'] === 'string' ? body['user'] : undefined });
};
