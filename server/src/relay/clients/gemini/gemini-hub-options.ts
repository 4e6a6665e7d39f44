import { geminiJsonSchema, parametersJsonSchema } from './gemini-json-schema.js';
import {
  geminiInvalid,
  geminiUnsupported,
  type GeminiGenerationConfig,
  type GeminiTool,
  type GeminiToolConfig,
} from './gemini-wire.js';

/**
 * Gemini's tools, tool config and generation config as the hub's (OpenAI chat) fields. What the hub
 * cannot express and would change the answer if dropped is the client's 400, naming the field:
 * Google's own tools (googleSearch, codeExecution, urlContext, …), more than one candidate, media
 * output, log probabilities, cached content. Safety settings are ignored (no other provider takes them).
 */
type Fields = Record<string, unknown>;
type FunctionTool = {
  type: 'function';
  function: { name: string; description?: string; parameters: Fields };
};

/** The function tools of Gemini's `tools`; any other tool is refused by name. */
export const hubTools = (tools: readonly GeminiTool[]): FunctionTool[] => {
  const out: FunctionTool[] = [];
  tools.forEach((tool, index) => {
    const other = Object.keys(tool).find((key) => key !== 'functionDeclarations' && tool[key] != null);
    if (other !== undefined)
      throw geminiUnsupported(
        `tools.${index}.${other}: the ${other} tool is not supported on this model (function declarations only)`,
      );
    for (const declaration of tool.functionDeclarations ?? []) {
      const given = declaration.parametersJsonSchema ?? declaration.parameters;
      const parameters = given
        ? parametersJsonSchema(given, !declaration.parametersJsonSchema)
        : { type: 'object', properties: {} };
      out.push({
        type: 'function',
        function: {
          name: declaration.name,
          ...(declaration.description ? { description: declaration.description } : {}),
          parameters,
        },
      });
    }
  });
  return out;
};

/**
 * functionCallingConfig as tool_choice: AUTO (and VALIDATED) → auto, NONE → none, ANY → required, or
 * the one function when one name is allowed. ANY with several allowed names keeps only those tools.
 */
export const hubToolChoice = (
  config: GeminiToolConfig | null | undefined,
  tools: FunctionTool[],
): { tools: FunctionTool[]; toolChoice?: unknown } => {
  const calling = config?.functionCallingConfig;
  const mode = (calling?.mode ?? '').toUpperCase();
  if (mode === 'AUTO' || mode === 'VALIDATED') return { tools, toolChoice: 'auto' };
  if (mode === 'NONE') return { tools, toolChoice: 'none' };
  if (mode !== 'ANY') {
    if (mode === '' || mode === 'MODE_UNSPECIFIED') return { tools };
    throw geminiInvalid(`toolConfig.functionCallingConfig.mode: unknown mode ${calling?.mode ?? ''}`);
  }
  const allowed = calling?.allowedFunctionNames ?? [];
  if (allowed.length === 0) return { tools, toolChoice: 'required' };
  const kept = tools.filter((tool) => allowed.includes(tool.function.name));
  if (kept.length === 0)
    throw geminiInvalid('toolConfig.functionCallingConfig.allowedFunctionNames: names no declared function');
  const only = allowed.length === 1 ? allowed[0] : undefined;
  return {
    tools: kept,
    toolChoice: only === undefined ? 'required' : { type: 'function', function: { name: only } },
  };
};

/**
 * thinkingConfig as reasoning_effort. thinkingBudget: 0 (thinking off) sends none; −1 (dynamic) is
 * medium; under 4096 tokens low, under 16384 medium, else high. thinkingLevel: MINIMAL and LOW → low,
 * MEDIUM → medium, HIGH → high. `includeThoughts` asks for thought parts in the answer: it is read
 * there, from the request (OpenAI's chat has no such switch).
 */
export const reasoningEffort = (thinking: GeminiGenerationConfig['thinkingConfig']): string | undefined => {
  const level = thinking?.thinkingLevel?.toUpperCase();
  if (level === 'MINIMAL' || level === 'LOW') return 'low';
  if (level === 'MEDIUM') return 'medium';
  if (level === 'HIGH') return 'high';
  const budget = thinking?.thinkingBudget;
  if (budget === undefined || budget === null || budget === 0) return undefined;
  if (budget < 0) return 'medium';
  if (budget < 4096) return 'low';
  if (budget < 16384) return 'medium';
  return 'high';
};

const JSON_MIME = 'application/json';

const responseFormat = (config: GeminiGenerationConfig): Fields | undefined => {
  const mime = config.responseMimeType?.toLowerCase();
  if (mime === undefined || mime === '' || mime === 'text/plain') return undefined;
  if (mime !== JSON_MIME)
    throw geminiUnsupported(
      `generationConfig.responseMimeType: ${config.responseMimeType ?? ''} is not supported (text/plain or application/json)`,
    );
  const schema =
    config.responseJsonSchema ??
    (config.responseSchema ? geminiJsonSchema(config.responseSchema) : undefined);
  return schema === undefined
    ? { type: 'json_object' }
    : { type: 'json_schema', json_schema: { name: 'response', schema } };
};

/** generationConfig as the hub's sampling and output fields. */
export const hubGenerationFields = (config: GeminiGenerationConfig | null | undefined): Fields => {
  if (!config) return {};
  if (typeof config.candidateCount === 'number' && config.candidateCount > 1)
    throw geminiUnsupported('generationConfig.candidateCount: only 1 candidate is supported');
  const media = (config.responseModalities ?? []).find((modality) => modality.toUpperCase() !== 'TEXT');
  if (media !== undefined)
    throw geminiUnsupported(
      `generationConfig.responseModalities: ${media} output is not supported (TEXT only)`,
    );
  if (config.responseLogprobs === true)
    throw geminiUnsupported('generationConfig.responseLogprobs: log probabilities are not supported');
  const out: Fields = {};
  const set = (key: string, value: unknown) => {
    if (value !== undefined && value !== null) out[key] = value;
  };
  set('temperature', config.temperature);
  set('top_p', config.topP);
  set('top_k', config.topK);
  set('max_tokens', config.maxOutputTokens);
  if (config.stopSequences && config.stopSequences.length > 0) out['stop'] = config.stopSequences;
  set('seed', config.seed);
  set('presence_penalty', config.presencePenalty);
  set('frequency_penalty', config.frequencyPenalty);
  set('response_format', responseFormat(config));
  set('reasoning_effort', reasoningEffort(config.thinkingConfig));
  return out;
};
