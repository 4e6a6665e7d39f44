import { z } from 'zod';
import { relayError, type AppError } from '../../../lib/app-error.js';
import { describeZodIssue } from '../../../lib/zod-issue.js';

/**
 * Gemini's generateContent request as clients send it, read once with zod (loose: unknown fields kept
 * and ignored). Google's REST API reads proto JSON, so it takes `snake_case` as well as `camelCase`
 * field names (its own curl examples write `system_instruction`, `inline_data`, `function_declarations`)
 * and a single object where a list is expected (`"contents": {…}`, `"parts": {…}`): both are read here.
 * Field names are made camelCase level by level, never inside user data (`args`, `response`, schemas).
 */
const camelOf = (key: string): string =>
  key.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

/** One level of an object with its snake_case keys in camelCase (a camelCase key given too wins). */
export const camelKeys = (value: unknown): unknown => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    if (!key.includes('_')) continue;
    const camel = camelOf(key);
    if (camel === key || camel in value) continue;
    out ??= { ...(value as Record<string, unknown>) };
    out[camel] = out[key];
    delete out[key];
  }
  return out ?? value;
};

const obj = <T extends z.core.$ZodLooseShape>(shape: T) => z.preprocess(camelKeys, z.looseObject(shape));

/** A list, or one item where the API takes one for a list. */
const list = <T extends z.ZodType>(item: T) =>
  z.preprocess(
    (value) => (value === undefined || value === null || Array.isArray(value) ? value : [value]),
    z.array(item),
  );

const record = z.record(z.string(), z.unknown());

const inlineData = obj({ mimeType: z.string(), data: z.string() });

/** What a part may carry; `thought` parts are dropped, `thoughtSignature` is ignored. */
const partShape = {
  text: z.string().optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
  inlineData: inlineData.optional(),
  fileData: obj({ mimeType: z.string().optional(), fileUri: z.string() }).optional(),
  functionCall: obj({ name: z.string(), args: record.nullish(), id: z.string().nullish() }).optional(),
  functionResponse: obj({
    name: z.string(),
    response: record.nullish(),
    id: z.string().nullish(),
    /** Gemini 3's multimodal function responses: media that go with the result. */
    parts: list(obj({ inlineData: inlineData.optional() })).optional(),
  }).optional(),
};

/** A part; a bare string is read as a text part. */
const part = z.preprocess((value) => (typeof value === 'string' ? { text: value } : value), obj(partShape));

const content = obj({ role: z.string().optional(), parts: list(part).default([]) });

/** Contents: a list, one Content, or a string (one user turn). */
const contents = z.preprocess(
  (value) => (typeof value === 'string' ? [{ role: 'user', parts: [{ text: value }] }] : value),
  list(z.preprocess((value) => (typeof value === 'string' ? { parts: [{ text: value }] } : value), content)),
);

const functionDeclaration = obj({
  name: z.string(),
  description: z.string().nullish(),
  parameters: record.nullish(),
  parametersJsonSchema: record.nullish(),
});

/** A tool: function declarations, or one of Google's own tools (googleSearch, codeExecution, …). */
const tool = obj({ functionDeclarations: list(functionDeclaration).nullish() });

const toolConfig = obj({
  functionCallingConfig: obj({
    mode: z.string().nullish(),
    allowedFunctionNames: list(z.string()).nullish(),
  }).nullish(),
});

const number = z.number().nullish();

const generationConfig = obj({
  temperature: number,
  topP: number,
  topK: number,
  maxOutputTokens: z.number().int().min(1).nullish(),
  stopSequences: list(z.string()).nullish(),
  candidateCount: z.number().int().nullish(),
  seed: z.number().int().nullish(),
  presencePenalty: number,
  frequencyPenalty: number,
  responseMimeType: z.string().nullish(),
  responseSchema: record.nullish(),
  responseJsonSchema: record.nullish(),
  responseModalities: list(z.string()).nullish(),
  responseLogprobs: z.boolean().nullish(),
  thinkingConfig: obj({
    includeThoughts: z.boolean().nullish(),
    thinkingBudget: z.number().int().nullish(),
    thinkingLevel: z.string().nullish(),
  }).nullish(),
});

/** A system instruction: a Content, or a string. */
const systemInstruction = z.preprocess(
  (value) => (typeof value === 'string' ? { parts: [{ text: value }] } : value),
  content,
);

const generateContentRequest = obj({
  contents: contents.refine((items) => items.length > 0, 'contents must not be empty'),
  systemInstruction: systemInstruction.nullish(),
  tools: list(tool).nullish(),
  toolConfig: toolConfig.nullish(),
  generationConfig: generationConfig.nullish(),
  cachedContent: z.string().nullish(),
});

export type GeminiRequest = z.infer<typeof generateContentRequest>;
export type GeminiContent = z.infer<typeof content>;
export type GeminiPart = GeminiContent['parts'][number];
export type GeminiGenerationConfig = NonNullable<GeminiRequest['generationConfig']>;
export type GeminiTool = NonNullable<GeminiRequest['tools']>[number];
export type GeminiToolConfig = NonNullable<GeminiRequest['toolConfig']>;

/** The client's 400 for a body Gemini would refuse too, its message naming the field. */
export const geminiInvalid = (message: string): AppError =>
  relayError(400, 'invalid_gemini_request', message, 'invalid_request_error');

/** The code of the 400s for what Gemini itself takes but the hub cannot say: only a native Gemini channel could serve it. */
export const GEMINI_UNSUPPORTED = 'gemini_feature_unsupported';

/** The client's 400 for a feature of Gemini's the hub cannot express (Google's tools, media output, …), naming the field. */
export const geminiUnsupported = (message: string): AppError =>
  relayError(400, GEMINI_UNSUPPORTED, message, 'invalid_request_error');

/** Reads a generateContent body; a shape Gemini would refuse is the client's 400 naming the field. */
export const readGeminiRequest = (body: unknown): GeminiRequest => {
  const result = generateContentRequest.safeParse(body);
  if (result.success) return result.data;
  throw geminiInvalid(describeZodIssue(result.error, 'invalid generateContent request'));
};

/** countTokens' body: `contents`, or a whole `generateContentRequest` (errors name it in their path). */
const countTokensRequest = obj({
  contents: contents.optional(),
  generateContentRequest: generateContentRequest.nullish(),
});

/** The generateContent request a countTokens body counts. */
export const readGeminiCountRequestBody = (body: unknown): GeminiRequest => {
  const result = countTokensRequest.safeParse(body);
  if (!result.success) throw geminiInvalid(describeZodIssue(result.error, 'invalid countTokens request'));
  const { contents: given, generateContentRequest: whole } = result.data;
  if (whole) return whole;
  if (!given || given.length === 0)
    throw geminiInvalid('contents: contents or generateContentRequest is required');
  return { contents: given };
};
