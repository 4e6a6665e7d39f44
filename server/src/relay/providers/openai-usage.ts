import type { Usage } from './adaptor.js';

/** OpenAI's usage object (or Anthropic-style input/output tokens) as Usage; undefined if not an object. */
export const readUsage = (value: unknown): Usage | undefined => {
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
