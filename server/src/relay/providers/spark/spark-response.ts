import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { relayError } from '../../../lib/app-error.js';
import { nowSeconds } from '../../../lib/time.js';
import type { ParsedResponse, RelayRequestMeta, UpstreamErrorInfo, Usage } from '../adaptor.js';
import { chatCompletion, replyText, usageOf, type ToolCall } from '../openai-chat-response.js';

const count = z.number().nullish();

/** One answer frame: `header` (code, message, sid, status 0/1/2), `payload.choices.text[]`, `payload.usage.text`. */
export const sparkFrame = z.looseObject({
  header: z.looseObject({
    code: z.number().default(0),
    message: z.string().default(''),
    sid: z.string().default(''),
    status: z.number().default(0),
  }),
  payload: z
    .looseObject({
      choices: z
        .looseObject({
          status: z.number().nullish(),
          text: z
            .array(
              z.looseObject({
                content: z.string().nullish(),
                function_call: z.looseObject({ name: z.string(), arguments: z.string().nullish() }).nullish(),
              }),
            )
            .default([]),
        })
        .nullish(),
      usage: z
        .looseObject({
          text: z
            .looseObject({ prompt_tokens: count, completion_tokens: count, total_tokens: count })
            .nullish(),
        })
        .nullish(),
    })
    .nullish(),
});

export type SparkFrame = z.infer<typeof sparkFrame>;

/** Spark's error frame: a non-zero `header.code` with its `message`. */
export const parseSparkError = (body: unknown): UpstreamErrorInfo | undefined => {
  const parsed = sparkFrame.safeParse(Array.isArray(body) ? body.at(-1) : body);
  if (!parsed.success || parsed.data.header.code === 0 || parsed.data.header.message === '') return undefined;
  const { code, message } = parsed.data.header;
  return { message, type: 'xunfei_error', code: String(code) };
};

/** A frame's text and function call. */
export const frameParts = (frame: SparkFrame): { content: string; toolCalls: ToolCall[] } => {
  let content = '';
  const toolCalls: ToolCall[] = [];
  for (const item of frame.payload?.choices?.text ?? []) {
    content += item.content ?? '';
    if (item.function_call)
      toolCalls.push({
        id: `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
        type: 'function',
        function: { name: item.function_call.name, arguments: item.function_call.arguments ?? '{}' },
      });
  }
  return { content, toolCalls };
};

export const frameUsage = (frame: SparkFrame): Usage | undefined => {
  const usage = frame.payload?.usage?.text;
  if (!usage) return undefined;
  const prompt = usage.prompt_tokens ?? 0;
  const completion = usage.completion_tokens ?? Math.max(0, (usage.total_tokens ?? 0) - prompt);
  return prompt + completion > 0 ? usageOf(prompt, completion) : undefined;
};

/** An HTTP status for Spark's error codes (auth 11200, quotas 11201-11203, content 10013-10019). */
const statusOf = (code: string): number => {
  if (code === '11200' || code === '10313') return 401;
  if (/^1120[1-3]$/.test(code)) return 429;
  if (/^100(1[0-9]|0[0-9])$/.test(code) || code === '10907') return 400;
  return 500;
};

const scrubbed = (text: string, meta: RelayRequestMeta): string =>
  meta.channel.key
    .split('|')
    .filter((part) => part.length >= 6)
    .reduce((out, secret) => out.split(secret).join('[redacted]'), text);

/** Every frame of a WebSocket answer (the transport's JSON array) gathered into one `chat.completion`. */
export const parseSparkFrames = (body: unknown, meta: RelayRequestMeta): ParsedResponse => {
  const frames = (Array.isArray(body) ? body : [body]).flatMap((item) => {
    const parsed = sparkFrame.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
  const failed = frames.find((frame) => frame.header.code !== 0);
  if (failed) {
    const code = String(failed.header.code);
    throw relayError(statusOf(code), code, scrubbed(failed.header.message, meta), 'xunfei_error');
  }
  let content = '';
  const toolCalls: ToolCall[] = [];
  let usage: Usage | undefined;
  for (const frame of frames) {
    const parts = frameParts(frame);
    content += parts.content;
    toolCalls.push(...parts.toolCalls);
    usage = frameUsage(frame) ?? usage;
  }
  const sid = frames[0]?.header.sid || randomUUID().replaceAll('-', '');
  const choice = {
    index: 0,
    content,
    toolCalls,
    finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
  } as const;
  return {
    body: chatCompletion(`chatcmpl-${sid}`, meta.model, nowSeconds(), [choice], usage),
    ...(usage ? { usage } : {}),
    text: replyText(content, toolCalls),
  };
};
