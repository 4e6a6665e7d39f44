import { describe, expect, it } from 'vitest';
import { AppError } from '../../../lib/app-error.js';
import { geminiToHub } from './gemini-to-hub.js';
import { GEMINI_UNSUPPORTED } from './gemini-wire.js';

const route = { model: 'gemini-2.5-flash' };

const refusal = (body: Record<string, unknown>, at = route): AppError => {
  try {
    geminiToHub(body, at);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(400);
    expect((error as AppError).type).toBe('invalid_request_error');
    return error as AppError;
  }
  throw new Error('not refused');
};

describe('geminiToHub: refusals name the field', () => {
  it.each([
    [{ contents: 'x', tools: [{ googleSearch: {} }] }, /tools\.0\.googleSearch/],
    [
      { contents: 'x', tools: [{ functionDeclarations: [] }, { code_execution: {} }] },
      /tools\.1\.codeExecution/,
    ],
    [{ contents: 'x', tools: [{ urlContext: {} }] }, /tools\.0\.urlContext/],
    [{ contents: 'x', generationConfig: { candidateCount: 2 } }, /generationConfig\.candidateCount/],
    [
      { contents: 'x', generationConfig: { responseModalities: ['TEXT', 'IMAGE'] } },
      /generationConfig\.responseModalities/,
    ],
    [
      { contents: 'x', generationConfig: { responseMimeType: 'text/x.enum' } },
      /generationConfig\.responseMimeType/,
    ],
    [{ contents: 'x', cachedContent: 'cachedContents/abc' }, /cachedContent/],
    [
      { contents: [{ parts: [{ inlineData: { mimeType: 'audio/mp3', data: 'AA==' } }] }] },
      /contents\.0\.parts\.0\.inlineData\.mimeType/,
    ],
    [
      { contents: [{ parts: [{ fileData: { mimeType: 'video/mp4', fileUri: 'gs://a' } }] }] },
      /contents\.0\.parts\.0\.fileData/,
    ],
    [
      { contents: [{ parts: [{ text: 'a' }, { executableCode: { code: '1' } }] }] },
      /contents\.0\.parts\.1\.executableCode/,
    ],
    [
      {
        contents: 'x',
        systemInstruction: { parts: [{ inlineData: { mimeType: 'image/png', data: 'AA==' } }] },
      },
      /systemInstruction\.parts\.0/,
    ],
  ])('refuses what only Gemini itself serves: %j', (body, message) => {
    const error = refusal(body);
    expect(error.message).toMatch(message);
    expect(error.code).toBe(GEMINI_UNSUPPORTED);
  });

  it.each([
    [{ contents: 'x', generationConfig: { temperature: 'hot' } }, /generationConfig\.temperature/],
    [{ contents: [{ parts: [{ text: 7 }] }] }, /contents\.0\.parts\.0\.text/],
    [{ contents: [{ role: 'system', parts: [{ text: 'a' }] }] }, /contents\.0\.role/],
    [{ contents: [] }, /contents/],
    [{}, /contents/],
    [
      { contents: 'x', toolConfig: { functionCallingConfig: { mode: 'SOMETIMES' } } },
      /toolConfig\.functionCallingConfig\.mode/,
    ],
  ])('refuses a malformed body: %j', (body, message) => {
    const error = refusal(body);
    expect(error.message).toMatch(message);
    expect(error.code).toBe('invalid_gemini_request');
  });

  it('needs a model', () => {
    expect(refusal({ contents: 'x' }, {} as typeof route).message).toMatch(/model/);
  });
});
