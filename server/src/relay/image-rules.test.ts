import { describe, expect, it } from 'vitest';
import { RELAY_ROUTES, readRelayRequest } from './relay-request.js';

const images = RELAY_ROUTES.find((route) => route.mode === 'images')!;
const read = (body: Record<string, unknown>) =>
  readRelayRequest(images, Buffer.from(JSON.stringify(body)), 'application/json', undefined);

describe('image requests: one-api’s size, n and prompt rules per model', () => {
  it('accepts what each model draws, with one-api’s defaults (dall-e-2, 1024x1024, n 1)', async () => {
    await expect(read({ prompt: 'a cat' })).resolves.toMatchObject({ model: 'dall-e-2' });
    await expect(read({ model: 'dall-e-2', prompt: 'a cat', size: '256x256', n: 10 })).resolves.toBeDefined();
    await expect(read({ model: 'dall-e-3', prompt: 'a cat', size: '1792x1024' })).resolves.toBeDefined();
    await expect(read({ model: 'wanx-v1', prompt: 'a cat', size: '720x1280', n: 4 })).resolves.toBeDefined();
    // cogview-3 draws any size; a model without rules (newer ones) is not checked.
    await expect(read({ model: 'cogview-3', prompt: 'a cat', size: '333x777' })).resolves.toBeDefined();
    await expect(read({ model: 'gpt-image-1', prompt: 'a cat', size: '1536x1024' })).resolves.toBeDefined();
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
  ])('refuses %j with a 400 %s', async (body, code, message) => {
    await expect(read(body)).rejects.toMatchObject({ status: 400, code, message });
  });

  it('still refuses a missing prompt first', async () => {
    await expect(read({ model: 'dall-e-3' })).rejects.toMatchObject({
      status: 400,
      message: 'prompt is required',
    });
  });
});
