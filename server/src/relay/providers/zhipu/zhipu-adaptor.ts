import type { RelayRequestMeta, TranslatingAdaptor } from '../adaptor.js';
import { parseOpenAiStyleError } from '../openai-errors.js';
import { choiceText, readUsage } from '../openai-usage.js';
import { zhipuJwt } from './zhipu-jwt.js';
import { createZhipuStreamTranslator } from './zhipu-stream.js';
import { parseZhipuV3Response, zhipuV3Body } from './zhipu-v3.js';
import { createZhipuV3Decoder } from './zhipu-v3-events.js';

/** chatglm_* models live on the v3 model API; every other model (glm-*, cogview, embedding-*) on v4. */
export const isZhipuV3 = (meta: RelayRequestMeta): boolean =>
  meta.mode === 'chat' && meta.model.startsWith('chatglm_');

const urlOf = (meta: RelayRequestMeta): string => {
  const base = meta.channel.baseUrl;
  if (meta.mode === 'embeddings') return `${base}/api/paas/v4/embeddings`;
  if (meta.mode === 'images') return `${base}/api/paas/v4/images/generations`;
  if (isZhipuV3(meta))
    return `${base}/api/paas/v3/model-api/${encodeURIComponent(meta.model)}/${meta.stream ? 'sse-invoke' : 'invoke'}`;
  return `${base}/api/paas/v4/chat/completions`;
};

const clamp = (value: unknown): unknown =>
  typeof value === 'number' ? Math.min(1, Math.max(0, value)) : value;

const v4Body = (body: Record<string, unknown>, meta: RelayRequestMeta): Record<string, unknown> => {
  if (meta.mode === 'images')
    return Object.fromEntries(
      Object.entries({
        model: meta.model,
        prompt: body['prompt'],
        size: body['size'],
        user_id: body['user'],
      }).filter(([, value]) => value !== undefined),
    );
  if (meta.mode === 'embeddings') return { model: meta.model, input: body['input'] };
  const out: Record<string, unknown> = { ...body, model: meta.model };
  // Zhipu takes temperature and top_p in [0, 1] (one-api clamps them).
  for (const name of ['temperature', 'top_p']) if (name in out) out[name] = clamp(out[name]);
  if (meta.stream) out['stream_options'] = { include_usage: true };
  return out;
};

const base64Of = (values: readonly number[]): string => {
  const buffer = Buffer.alloc(values.length * 4);
  values.forEach((value, index) => buffer.writeFloatLE(value, index * 4));
  return buffer.toString('base64');
};

/** v4 answers are OpenAI's; embeddings as base64 when the client asked and Zhipu sent floats. */
const parseV4 = (body: unknown, meta: RelayRequestMeta) => {
  const usage = readUsage((body as { usage?: unknown } | null)?.usage);
  let out = body;
  const data = (body as { data?: unknown } | null)?.data;
  if (meta.mode === 'embeddings' && meta.body['encoding_format'] === 'base64' && Array.isArray(data))
    out = {
      ...(body as object),
      data: (data as { embedding?: unknown }[]).map((item) => ({
        ...item,
        embedding: Array.isArray(item.embedding) ? base64Of(item.embedding as number[]) : item.embedding,
      })),
    };
  // Zhipu's chat answer has no `object`: OpenAI's clients may read it.
  if (meta.mode === 'chat' && typeof out === 'object' && out !== null && !('object' in out))
    out = { ...out, object: 'chat.completion' };
  return { body: out, ...(usage ? { usage } : {}), text: choiceText(body) };
};

/**
 * Zhipu (channel type 16). A key `id.secret` becomes a JWT made locally (zhipu-jwt.ts, cached), sent
 * as the bearer (a key that is not `id.secret` is sent as it is). glm-* and every non-chatglm model:
 * the OpenAI-compatible v4 API (chat, embeddings, images); chatglm_*: v3 `invoke` / `sse-invoke`,
 * whose stream zhipu-v3-events.ts reads (the usage rides on its last event's `meta:` field).
 */
export const zhipuAdaptor: TranslatingAdaptor = {
  kind: 'translating',
  modes: ['chat', 'embeddings', 'images'],
  buildRequest: (body, meta) => {
    const credential = zhipuJwt(meta.channel.key) ?? meta.channel.key;
    const v3 = isZhipuV3(meta);
    return {
      url: urlOf(meta),
      headers: {
        'content-type': 'application/json',
        // v4 takes a bearer; v3 the bare JWT (as one-api sends it).
        authorization: v3 ? credential : `Bearer ${credential}`,
        ...(v3 && meta.stream ? { accept: 'text/event-stream' } : {}),
      },
      body: JSON.stringify(v3 ? zhipuV3Body(body, meta) : v4Body(body, meta)),
    };
  },
  parseResponse: (body, meta) => (isZhipuV3(meta) ? parseZhipuV3Response(body, meta) : parseV4(body, meta)),
  translateStream: (meta) => createZhipuStreamTranslator(meta, isZhipuV3(meta)),
  // v3's stream ends with a `meta:` field (its usage) that server-sent events would drop.
  decodeStream: (meta) => (isZhipuV3(meta) ? createZhipuV3Decoder() : undefined),
  parseError: (body) => {
    // v3 answers `{code, msg, success: false}`; v4 `{error: {code, message}}`.
    if (typeof body === 'object' && body !== null && (body as { success?: unknown }).success === true)
      return undefined;
    return parseOpenAiStyleError(body);
  },
};
