import { describe, expect, it } from 'vitest';
import { responsesNative } from './openai/openai-responses-native.js';
import { readUsage } from './openai-usage.js';

describe('OpenAI cached tokens', () => {
  it('are read from a chat completion’s prompt_tokens_details', () => {
    expect(
      readUsage({
        prompt_tokens: 2006,
        completion_tokens: 300,
        total_tokens: 2306,
        prompt_tokens_details: { cached_tokens: 1920, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 128 },
      }),
    ).toEqual({
      prompt_tokens: 2006,
      completion_tokens: 300,
      total_tokens: 2306,
      prompt_tokens_details: { cached_tokens: 1920 },
    });
  });

  it('leave a usage that cached nothing as it was', () => {
    expect(
      readUsage({
        prompt_tokens: 19,
        completion_tokens: 12,
        total_tokens: 31,
        prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      }),
    ).toEqual({ prompt_tokens: 19, completion_tokens: 12, total_tokens: 31 });
  });

  it('are read from a Response (JSON and its final stream event), reasoning billed as output', () => {
    const usage = {
      input_tokens: 5000,
      input_tokens_details: { cached_tokens: 4096 },
      output_tokens: 900,
      output_tokens_details: { reasoning_tokens: 600 },
      total_tokens: 5900,
    };
    const billed = {
      prompt_tokens: 5000,
      completion_tokens: 900,
      total_tokens: 5900,
      prompt_tokens_details: { cached_tokens: 4096 },
    };
    const native = responsesNative(() => 'https://api.openai.com/v1/responses');
    expect(native.readAnswer({ object: 'response', output: [], usage }).usage).toEqual(billed);
    const step = native.streamTap()({
      event: 'response.completed',
      data: JSON.stringify({ type: 'response.completed', response: { object: 'response', usage } }),
    });
    expect(step.usage).toEqual(billed);
    expect(readUsage(usage)).toEqual(billed);
  });
});
