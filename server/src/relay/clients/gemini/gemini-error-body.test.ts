import { describe, expect, it } from 'vitest';
import { geminiErrorBody, geminiStatusName } from './gemini-error-body.js';
import { geminiModelList } from './gemini-model-list.js';

describe('geminiErrorBody', () => {
  it.each([
    [400, 'INVALID_ARGUMENT'],
    [401, 'UNAUTHENTICATED'],
    [403, 'PERMISSION_DENIED'],
    [404, 'NOT_FOUND'],
    [413, 'INVALID_ARGUMENT'],
    [429, 'RESOURCE_EXHAUSTED'],
    [500, 'INTERNAL'],
    [503, 'UNAVAILABLE'],
    [504, 'DEADLINE_EXCEEDED'],
    [422, 'FAILED_PRECONDITION'],
    [507, 'INTERNAL'],
  ])('names %i %s', (status, name) => {
    expect(geminiStatusName(status)).toBe(name);
    expect(geminiErrorBody({ status, message: 'm', type: 'invalid_request_error', code: 'c' })).toEqual({
      error: { code: status, message: 'm', status: name },
    });
  });
});

describe('geminiModelList', () => {
  it('lists the ids as models/<id> with the three methods', () => {
    expect(geminiModelList(['gemini-2.5-pro', 'gpt-4o'])).toEqual({
      models: [
        {
          name: 'models/gemini-2.5-pro',
          version: '001',
          displayName: 'gemini-2.5-pro',
          description: 'gemini-2.5-pro, served by Sluice',
          inputTokenLimit: 1_048_576,
          outputTokenLimit: 65_536,
          supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
        },
        {
          name: 'models/gpt-4o',
          version: '001',
          displayName: 'gpt-4o',
          description: 'gpt-4o, served by Sluice',
          inputTokenLimit: 128_000,
          outputTokenLimit: 8_192,
          supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
        },
      ],
    });
  });
});
