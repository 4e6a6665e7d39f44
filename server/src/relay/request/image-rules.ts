import { relayError } from '../../lib/app-error.js';

/**
 * one-api's rules for an image request, per model: the sizes it draws, how many images one request
 * may ask for, and the longest prompt. A model without a row here is not checked (one-api refused
 * every size of a model it did not list; newer image models would be refused for no reason).
 */
interface ImageRule {
  readonly sizes?: readonly string[];
  readonly n: readonly [number, number];
  readonly promptLength: number;
}

const ALI_SIZES = ['512x1024', '1024x768', '1024x1024', '576x1024', '1024x576'];

export const IMAGE_RULES: Readonly<Record<string, ImageRule>> = {
  'dall-e-2': { sizes: ['256x256', '512x512', '1024x1024'], n: [1, 10], promptLength: 1000 },
  'dall-e-3': { sizes: ['1024x1024', '1024x1792', '1792x1024'], n: [1, 1], promptLength: 4000 },
  'ali-stable-diffusion-xl': { sizes: ALI_SIZES, n: [1, 4], promptLength: 4000 },
  'ali-stable-diffusion-v1.5': { sizes: ALI_SIZES, n: [1, 4], promptLength: 4000 },
  'wanx-v1': { sizes: ['1024x1024', '720x1280', '1280x720'], n: [1, 4], promptLength: 4000 },
  'cogview-3': { n: [1, 1], promptLength: 833 },
  'step-1x-medium': {
    sizes: ['256x256', '512x512', '768x768', '1024x1024', '1280x800', '800x1280'],
    n: [1, 1],
    promptLength: 4000,
  },
};

const refused = (code: string, message: string) => relayError(400, code, message);

/** Throws one-api's 400 when an image request breaks its model's rule (size 1024x1024 and n 1 by default). */
export const checkImageRequest = (model: string, body: Record<string, unknown>): void => {
  const rule = IMAGE_RULES[model];
  if (!rule) return;
  const size = typeof body['size'] === 'string' && body['size'] !== '' ? body['size'] : '1024x1024';
  if (rule.sizes && !rule.sizes.includes(size))
    throw refused(
      'size_not_supported',
      `size ${size} is not supported by ${model}: ${rule.sizes.join(', ')}`,
    );
  const prompt = typeof body['prompt'] === 'string' ? body['prompt'] : '';
  if (Buffer.byteLength(prompt) > rule.promptLength)
    throw refused('prompt_too_long', `prompt is too long for ${model} (at most ${rule.promptLength} bytes)`);
  const n = typeof body['n'] === 'number' ? body['n'] : 1;
  const [least, most] = rule.n;
  if (n < least || n > most)
    throw refused(
      'n_not_within_range',
      least === most
        ? `${model} draws ${most} image per request`
        : `n must be between ${least} and ${most} for ${model}`,
    );
};
