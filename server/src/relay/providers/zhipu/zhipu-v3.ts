import { z } from 'zod';
import { relayError } from '../../../lib/app-error.js';
import { nowSeconds } from '../../../lib/time.js';
import type { ParsedResponse, RelayRequestMeta } from '../adaptor.js';
import { readChatRequest } from '../openai-chat-request.js';
import { chatCompletion } from '../openai-chat-response.js';
import { readUsage } from '../openai-usage.js';

const clamp = (value: number | null | undefined): number | undefined =>
  value === null || value === undefined ? undefined : Math.min(1, Math.max(0, value));

/** The v3 model-api body (chatglm_*): `{prompt: [{role, content}], temperature, top_p, incremental}`. */
export const zhipuV3Body = (
  body: Record<string, unknown>,
  meta: RelayRequestMeta,
): Record<string, unknown> => {
  const request = readChatRequest(body);
  const prompt = request.messages.map((message) => ({
    role: message.role === 'assistant' ? 'assistant' : 'user',
    content:
      typeof message.content === 'string'
        ? message.content
        : (message.content ?? []).map((part) => part.text ?? '').join(''),
  }));
  const out: Record<string, unknown> = { prompt };
  const temperature = clamp(request.temperature);
  const topP = clamp(request.top_p);
  if (temperature !== undefined) out['temperature'] = temperature;
  if (topP !== undefined) out['top_p'] = topP;
  if (meta.stream) out['incremental'] = true;
  return out;
};

const v3Answer = z.looseObject({
  data: z
    .looseObject({
      task_id: z.string().default(''),
      choices: z.array(z.looseObject({ content: z.string().default('') })).default([]),
      usage: z.unknown().optional(),
    })
    .optional(),
});

const v3Failure = z.looseObject({ success: z.literal(false), code: z.number(), msg: z.string().default('') });

/** v3 `invoke` answers `{code, msg, success, data: {task_id, choices: [{role, content}], usage}}`. */
export const parseZhipuV3Response = (body: unknown, meta: RelayRequestMeta): ParsedResponse => {
  const failed = v3Failure.safeParse(body);
  if (failed.success) {
    const code = failed.data.code;
    const status = code >= 1000 && code < 1100 ? 401 : code >= 1300 && code < 1400 ? 429 : 400;
    throw relayError(status, String(code), failed.data.msg || 'zhipu error', 'zhipu_error');
  }
  const parsed = v3Answer.safeParse(body);
  const data = parsed.success ? parsed.data.data : undefined;
  // v3 quotes its content as a JSON string ("\"…\""), as one-api strips it.
  const content = (data?.choices ?? [])
    .map((choice) => choice.content.replace(/^"|"$/g, '').replaceAll('\\n', '\n'))
    .join('');
  const usage = readUsage(data?.usage);
  return {
    body: chatCompletion(
      `chatcmpl-${data?.task_id || 'zhipu'}`,
      meta.model,
      nowSeconds(),
      [{ index: 0, content, toolCalls: [], finishReason: 'stop' }],
      usage,
    ),
    ...(usage ? { usage } : {}),
    text: content,
  };
};
