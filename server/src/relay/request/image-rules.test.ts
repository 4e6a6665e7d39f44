import { describe, expect, it } from 'vitest';
import { checkImageRequest } from './image-rules.js';

/** The check as the pipeline runs it: on the model the channel maps to (dall-e-2 by default). */
const outcome = (body: Record<string, unknown>): unknown => {
  try {
    checkImageRequest(typeof body['model'] === 'string' ? body['model'] : 'dall-e-2', body);
    return 'accepted';
  } catch (error) {
    return error;
  }
};

describe('image requests: one-api’s size, n and prompt rules per model', () => {
  it('accepts what each model draws, with one-api’s defaults (1024x1024, n 1)', () => {
    for (const body of [
      { prompt: 'a cat' },
      { model: 'dall-e-2', prompt: 'a cat', size: '256x256', n: 10 },
      { model: 'dall-e-3', prompt: 'a cat', size: '1792x1024' },
      { model: 'wanx-v1', prompt: 'a cat', size: '720x1280', n: 4 },
      // cogview-3 draws any size; a model without rules (newer ones) is not checked.
      { model: 'cogview-3', prompt: 'a cat', size: '333x777' },
      { model: 'gpt-image-1', prompt: 'a cat', size: '1536x1024' },
    ])
      expect([body, outcome(body)]).toEqual([body, 'accepted']);
  });

  it.each([
    [
      { model: 'dall-e-2', prompt: 'a cat', size: '1792x1024' },
      'size_not_supported',
      'size 1792x1024 is not supported by dall-e-2: 256x256, 512x512, 1024x1024',
    ],
    [
      { model: 'dall-e-3', prompt: 'a cat', size: '512x512' },
      'size_not_supported',
      'size 512x512 is not supported by dall-e-3: 1024x1024, 1024x1792, 1792x1024',
    ],
    [
      { model: 'dall-e-3', prompt: 'a cat', n: 2 },
      'n_not_within_range',
      'dall-e-3 draws 1 image per request',
    ],
    [
      { model: 'wanx-v1', prompt: 'a cat', n: 5 },
      'n_not_within_range',
      'n must be between 1 and 4 for wanx-v1',
    ],
    [
      { model: 'dall-e-2', prompt: 'é'.repeat(501) },
      'prompt_too_long',
      'prompt is too long for dall-e-2 (at most 1000 bytes)',
    ],
    [
      { model: 'cogview-3', prompt: 'x'.repeat(834) },
      'prompt_too_long',
      'prompt is too long for cogview-3 (at most 833 bytes)',
    ],
  ])('refuses %j with a 400 %s', (body, code, message) => {
    expect(outcome(body)).toMatchObject({ status: 400, code, message });
  });
});
