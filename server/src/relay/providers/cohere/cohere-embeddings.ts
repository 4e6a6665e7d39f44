import { z } from 'zod';
import { relayError } from '../../../lib/app-error.js';
import type { ParsedResponse, RelayRequestMeta } from '../adaptor.js';
import { usageOf } from '../openai-chat-response.js';
import { cohereUsage } from './cohere-response.js';

const embeddingsRequest = z.looseObject({
  input: z.union([z.string(), z.array(z.string()).min(1)]),
  dimensions: z.number().int().positive().nullish(),
  encoding_format: z.enum(['float', 'base64']).nullish(),
});

const embedResponse = z.looseObject({
  embeddings: z.looseObject({ float: z.array(z.array(z.number())).default([]) }).nullish(),
  meta: cohereUsage.nullish(),
});

/**
 * Cohere's v2 embed body (`POST /v2/embed`): the texts, as documents to search (`input_type` is
 * required by the v3 models and later), float vectors.
 */
export const cohereEmbedBody = (body: Record<string, unknown>, model: string): Record<string, unknown> => {
  const parsed = embeddingsRequest.safeParse(body);
  if (!parsed.success)
    throw relayError(
      400,
      'convert_request_failed',
      'Cohere embeddings need input as a string or a list of strings',
      'invalid_request_error',
    );
  const { input, dimensions } = parsed.data;
  return {
    model,
    texts: typeof input === 'string' ? [input] : input,
    input_type: 'search_document',
    embedding_types: ['float'],
    ...(dimensions ? { output_dimension: dimensions } : {}),
  };
};

const base64Of = (values: readonly number[]): string => {
  const buffer = Buffer.alloc(values.length * 4);
  values.forEach((value, index) => buffer.writeFloatLE(value, index * 4));
  return buffer.toString('base64');
};

/** `embeddings.float` as OpenAI's embeddings list; usage from the billed input tokens. */
export const parseCohereEmbeddings = (body: unknown, meta: RelayRequestMeta): ParsedResponse => {
  const parsed = embedResponse.safeParse(body);
  const vectors = parsed.success ? (parsed.data.embeddings?.float ?? []) : [];
  const units = parsed.success ? (parsed.data.meta?.billed_units ?? parsed.data.meta?.tokens) : undefined;
  const usage = units ? usageOf(units.input_tokens ?? 0, 0) : undefined;
  const base64 = meta.body['encoding_format'] === 'base64';
  return {
    body: {
      object: 'list',
      data: vectors.map((values, index) => ({
        object: 'embedding',
        index,
        embedding: base64 ? base64Of(values) : values,
      })),
      model: meta.model,
      usage: { prompt_tokens: usage?.prompt_tokens ?? 0, total_tokens: usage?.total_tokens ?? 0 },
    },
    ...(usage ? { usage } : {}),
    text: '',
  };
};
