import { z } from 'zod';
import { relayError } from '../../../lib/app-error.js';
import { createSseParser } from '../../../lib/sse.js';
import { nowSeconds } from '../../../lib/time.js';
import type { ParsedResponse, RelayRequestMeta, TranslatingAdaptor, Usage } from '../adaptor.js';
import { chatCompletion } from '../openai-chat-response.js';
import { parseOpenAiStyleError } from '../openai-errors.js';
import { cozeUrlOf, cozeV2Body, cozeV3Body, isCozeV2 } from './coze-request.js';
import { cozeV2Translator, cozeV3Translator, parseCozeError } from './coze-stream.js';

const completion = (id: string, meta: RelayRequestMeta, content: string, usage: Usage | undefined) => ({
  body: chatCompletion(
    `chatcmpl-${id}`,
    meta.model,
    nowSeconds(),
    [{ index: 0, content, toolCalls: [], finishReason: 'stop' }],
    usage,
  ),
  ...(usage ? { usage } : {}),
  text: content,
});

const v2Answer = z.looseObject({
  conversation_id: z.string().default(''),
  messages: z.array(z.looseObject({ type: z.string().optional(), content: z.string().default('') })),
});

/** A JSON answer: v2's messages (the `answer` ones joined), else Coze's error said with a 200. */
const parseCoze = (body: unknown, meta: RelayRequestMeta): ParsedResponse => {
  const parsed = v2Answer.safeParse(body);
  if (parsed.success) {
    const content = parsed.data.messages
      .filter((message) => message.type === 'answer')
      .map((message) => message.content)
      .join('');
    return completion(parsed.data.conversation_id, meta, content, undefined);
  }
  const error = parseCozeError(body) ?? parseOpenAiStyleError(body);
  throw relayError(502, error?.code || 'bad_response', error?.message ?? 'Coze answered no message');
};

/** A v3 stream read whole into one answer (a non-stream request). */
const gatherCoze = (text: string, meta: RelayRequestMeta): ParsedResponse => {
  const parser = createSseParser();
  const translate = (isCozeV2(meta.channel) ? cozeV2Translator : cozeV3Translator)(meta);
  let content = '';
  let usage: Usage | undefined;
  let id = '';
  for (const event of [...parser.feed(text), ...parser.end()]) {
    const step = translate(event);
    if (step.error) throw relayError(502, step.error.code || 'bad_response', step.error.message);
    content += step.text ?? '';
    usage = step.usage ?? usage;
    for (const chunk of step.chunks as { id?: string }[]) id = chunk.id?.replace(/^chatcmpl-/, '') ?? id;
  }
  return completion(id, meta, content, usage);
};

/**
 * Coze (channel type 34), `Authorization: Bearer <key>`: the bot named by the model (`bot-` stripped),
 * the user from the channel's `config.user_id`. The v3 chat API (`<base>/v3/chat`, always streamed:
 * a non-stream request gathers the stream); v2 (`/open_api/v2/chat`, one-api's) when the channel's
 * base URL ends with that path or its api_version is v2. Usage from the completed chat's counts,
 * else counted locally by the relay.
 */
export const cozeAdaptor: TranslatingAdaptor = {
  kind: 'translating',
  modes: ['chat'],
  buildRequest: (body, meta) => {
    const v2 = isCozeV2(meta.channel);
    return {
      url: cozeUrlOf(meta.channel),
      headers: {
        authorization: `Bearer ${meta.channel.key}`,
        'content-type': 'application/json',
        accept: v2 && !meta.stream ? 'application/json' : 'text/event-stream',
      },
      body: JSON.stringify(
        v2
          ? cozeV2Body(body, meta.model, meta.channel, meta.stream)
          : cozeV3Body(body, meta.model, meta.channel),
      ),
    };
  },
  parseResponse: parseCoze,
  gatherStream: gatherCoze,
  translateStream: (meta) => (isCozeV2(meta.channel) ? cozeV2Translator(meta) : cozeV3Translator(meta)),
  parseError: parseCozeError,
};
