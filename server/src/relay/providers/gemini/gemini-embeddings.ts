import { z } from 'zod';
import { relayError } from '../../../lib/app-error.js';
import type { ParsedResponse, RelayRequestMeta } from '../adaptor.js';
import { usageOf } from '../openai-chat-response.js';

const embeddingsRequest = z.looseObject({
  input: z.union([z.string(), z.array(z.string()).min(1)]),
  dimensions: z.number().int().positive().nullish(),
  encoding_format: z.enum(['float', 'base64']).nullish(),
});

const batchResponse = z.looseObject({
  embeddings: z.array(z.looseObject({ values: z.array(z.number()).default([]) })).default([]),
});

/**
 * Gemini reports no usage for embeddings; Sluice estimates one token per four characters of input,
 * rounded up, and bills that (one-api counted these requests locally too).
 */
export const estimateEmbeddingTokens = (inputs: readonly string[]): number =>
  Math.ceil(inputs.reduce((sum, text) => sum + text.length, 0) / 4);

const inputsOf = (input: string | readonly string[]): readonly string[] =>
  typeof input === 'string' ? [input] : input;

/** The batchEmbedContents body: one request per input string (token-array inputs are refused). */
export const geminiEmbeddingsBody = (
  body: Record<string, unknown>,
  meta: RelayRequestMeta,
): Record<string, unknown> => {
  const parsed = embeddingsRequest.safeParse(body);
  if (!parsed.success)
    throw relayError(
      400,
      'convert_request_failed',
      'Gemini embeddings need input as a string or a list of strings',
      'invalid_request_error',
    );
  const inputs = inputsOf(parsed.data.input);
  const dimensions = parsed.data.dimensions;
  return {
    requests: inputs.map((text) => ({
      model: `models/${meta.model}`,
      content: { parts: [{ text }] },
      ...(dimensions ? { outputDimensionality: dimensions } : {}),
    })),
  };
};

/** A vector as OpenAI's base64 encoding: little-endian float32. */
const base64Of = (values: readonly number[]): string => {
  const buffer = Buffer.alloc(values.length * 4);
  values.forEach((value, index) => buffer.writeFloatLE(value, index * 4));
  return buffer.toString('base64');
};

/** batchEmbedContents' `embeddings[{values}]` as OpenAI's embeddings list. */
export const parseGeminiEmbeddings = (body: unknown, meta: RelayRequestMeta): ParsedResponse => {
  const parsed = batchResponse.safeParse(body);
  const embeddings = parsed.success ? parsed.data.embeddings : [];
  const request = embeddingsRequest.safeParse(meta.body);
  const base64 = request.success && request.data.encoding_format === 'base64';
  const estimated = request.success ? estimateEmbeddingTokens(inputsOf(request.data.input)) : 0;
  const usage = estimated > 0 ? usageOf(estimated, 0) : undefined;
  return {
    body: {
      object: 'list',
      data: embeddings.map((embedding, index) => ({
        object: 'embedding',
        index,
        embedding: base64 ? base64Of(embedding.values) : embedding.values,
      })),
      model: meta.model,
      usage: {
        prompt_tokens: usage?.prompt_tokens ?? 0,
        total_tokens: usage?.total_tokens ?? 0,
      },
    },
    ...(usage ? { usage } : {}),
    text: '',
  };
};
