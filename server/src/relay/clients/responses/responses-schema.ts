import { z } from 'zod';
import { relayError, type AppError } from '../../../lib/app-error.js';

/**
 * The Responses API request as Sluice reads it (`POST /v1/responses`), in zod, loose: fields Sluice
 * does not know are kept and ignored. Items, content parts and tools are listed here only by their
 * `type`; each is then read with the schema of its type (`readAs`), so an error names the exact field
 * (`input.3.call_id: …`).
 */
const nullableNumber = z.number().nullish();

export const responsesRequest = z.looseObject({
  model: z.string({ error: 'model is required' }).trim().min(1, 'model is required'),
  input: z.union([z.string(), z.array(z.looseObject({ type: z.string().optional() }))], {
    error: 'input is required: a string or a list of items',
  }),
  instructions: z.string().nullish(),
  stream: z.boolean({ error: 'stream must be true or false' }).nullish(),
  temperature: nullableNumber,
  top_p: nullableNumber,
  max_output_tokens: z.number().int().min(1, 'max_output_tokens must be at least 1').nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  user: z.string().nullish(),
  safety_identifier: z.string().nullish(),
  store: z.boolean().nullish(),
  background: z.boolean().nullish(),
  previous_response_id: z.string().nullish(),
  tools: z.array(z.looseObject({ type: z.string({ error: 'every tool needs a type' }) })).nullish(),
  tool_choice: z
    .union([z.enum(['auto', 'none', 'required']), z.looseObject({ type: z.string() })], {
      error: "tool_choice must be 'auto', 'none', 'required' or an object with a type",
    })
    .nullish(),
  reasoning: z.looseObject({ effort: z.string().nullish() }).nullish(),
  text: z
    .looseObject({
      format: z
        .looseObject({
          type: z.enum(['text', 'json_object', 'json_schema']),
          name: z.string().optional(),
          schema: z.record(z.string(), z.unknown()).optional(),
          description: z.string().optional(),
          strict: z.boolean().nullish(),
        })
        .nullish(),
    })
    .nullish(),
  include: z.array(z.string()).nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});

export type ResponsesRequest = z.infer<typeof responsesRequest>;

/** A message (`type: 'message'`, or the easy form `{ role, content }`). */
export const messageItem = z.looseObject({
  role: z.enum(['user', 'assistant', 'system', 'developer'], {
    error: "role must be 'user', 'assistant', 'system' or 'developer'",
  }),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))], {
    error: 'content must be a string or a list of content parts',
  }),
});

/** A tool's output: a string, or content parts (`input_text`, `input_image`, `input_file`). */
const toolOutput = z.union([z.string(), z.array(z.looseObject({ type: z.string() }))], {
  error: 'output must be a string or a list of content parts',
});

export const functionCallItem = z.looseObject({
  call_id: z.string(),
  name: z.string().min(1),
  arguments: z.string(),
  namespace: z.string().nullish(),
});

export const customToolCallItem = z.looseObject({
  call_id: z.string(),
  name: z.string().min(1),
  input: z.string(),
  namespace: z.string().nullish(),
});

export const toolOutputItem = z.looseObject({ call_id: z.string(), output: toolOutput });

/** Tools offered from a point of the conversation on (`type: 'additional_tools'`). */
export const additionalToolsItem = z.looseObject({
  tools: z.array(z.looseObject({ type: z.string({ error: 'every tool needs a type' }) })),
});

export const textPart = z.looseObject({ text: z.string() });
export const refusalPart = z.looseObject({ refusal: z.string() });
export const imagePart = z.looseObject({
  image_url: z.string().nullish(),
  file_id: z.string().nullish(),
  detail: z.string().nullish(),
});
export const filePart = z.looseObject({
  file_data: z.string().optional(),
  filename: z.string().optional(),
  file_id: z.string().nullish(),
  file_url: z.string().optional(),
});
export const audioPart = z.looseObject({
  input_audio: z.looseObject({ data: z.string(), format: z.string() }),
});

export const functionTool = z.looseObject({
  name: z.string().min(1),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});

export const customTool = z.looseObject({
  name: z.string().min(1),
  description: z.string().nullish(),
  format: z
    .looseObject({ type: z.string(), syntax: z.string().optional(), definition: z.string().optional() })
    .nullish(),
});

export const namespaceTool = z.looseObject({
  name: z.string().min(1),
  description: z.string().nullish(),
  tools: z.array(z.looseObject({ type: z.string() })),
});

export const namedChoice = z.looseObject({ name: z.string().min(1) });
export const allowedToolsChoice = z.looseObject({
  mode: z.enum(['auto', 'required']),
  tools: z.array(z.looseObject({ type: z.string(), name: z.string().optional() })),
});

/** The client's 400 for a body of the wrong shape: the message names the field. */
export const invalidRequest = (message: string): AppError =>
  relayError(400, 'invalid_text_request', message, 'invalid_request_error');

/**
 * The code of `toHub`'s refusals of what only an upstream serving the Responses API itself can
 * honour (stored state, built-in tools, files uploaded to OpenAI, …): the wiring may relay such a
 * body to those upstreams instead (`needsResponsesUpstream` names the field beforehand).
 */
export const RESPONSES_ONLY = 'responses_only';

/** The client's 400 for what the hub cannot express but a Responses upstream could. */
export const responsesOnly = (message: string): AppError =>
  relayError(400, RESPONSES_ONLY, message, 'invalid_request_error');

/** Reads `value` with `schema`; a failure is the client's 400, its field named under `path`. */
export const readAs = <T extends z.ZodType>(schema: T, value: unknown, path: string): z.infer<T> => {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = [path, ...(issue?.path ?? []).map(String)].filter((part) => part !== '').join('.');
  const message = issue?.message ?? 'invalid value';
  throw invalidRequest(field === '' ? message : `${field}: ${message}`);
};
