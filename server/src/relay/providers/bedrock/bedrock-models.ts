/**
 * Bedrock's model ids for the model names clients use: one-api's table (claude-*, llama3-*), plus
 * the Claude models Bedrock has served since. A name not in the table that already looks like a
 * Bedrock id (`anthropic.claude-…`, an inference profile `us.anthropic.…`, `meta.llama3-…`, an ARN)
 * is sent as it is.
 */
const BEDROCK_MODEL_IDS: Readonly<Record<string, string>> = {
  'claude-instant-1.2': 'anthropic.claude-instant-v1',
  'claude-2.0': 'anthropic.claude-v2',
  'claude-2.1': 'anthropic.claude-v2:1',
  'claude-3-haiku-20240307': 'anthropic.claude-3-haiku-20240307-v1:0',
  'claude-3-sonnet-20240229': 'anthropic.claude-3-sonnet-20240229-v1:0',
  'claude-3-opus-20240229': 'anthropic.claude-3-opus-20240229-v1:0',
  'claude-3-5-sonnet-20240620': 'anthropic.claude-3-5-sonnet-20240620-v1:0',
  'claude-3-5-sonnet-20241022': 'anthropic.claude-3-5-sonnet-20241022-v2:0',
  'claude-3-5-sonnet-latest': 'anthropic.claude-3-5-sonnet-20241022-v2:0',
  'claude-3-5-haiku-20241022': 'anthropic.claude-3-5-haiku-20241022-v1:0',
  'claude-3-7-sonnet-20250219': 'anthropic.claude-3-7-sonnet-20250219-v1:0',
  'claude-sonnet-4-20250514': 'anthropic.claude-sonnet-4-20250514-v1:0',
  'claude-opus-4-20250514': 'anthropic.claude-opus-4-20250514-v1:0',
  'claude-opus-4-1-20250805': 'anthropic.claude-opus-4-1-20250805-v1:0',
  'claude-sonnet-4-5-20250929': 'anthropic.claude-sonnet-4-5-20250929-v1:0',
  'claude-haiku-4-5-20251001': 'anthropic.claude-haiku-4-5-20251001-v1:0',
  'claude-opus-4-5-20251101': 'anthropic.claude-opus-4-5-20251101-v1:0',
  'llama3-8b-8192': 'meta.llama3-8b-instruct-v1:0',
  'llama3-70b-8192': 'meta.llama3-70b-instruct-v1:0',
};

/** The model names a Bedrock channel serves by default (the table's keys). */
export const BEDROCK_MODELS: readonly string[] = Object.keys(BEDROCK_MODEL_IDS);

/** The Bedrock model id of a model name (the table's, else the name as it is). */
export const bedrockModelId = (model: string): string => BEDROCK_MODEL_IDS[model] ?? model;

/**
 * Claude models go through InvokeModel with Anthropic's body; every other family through Converse.
 * An inference profile (`us.`, `eu.`, `global.` …) or an ARN naming a Claude model counts too.
 */
export const isBedrockClaude = (modelId: string): boolean =>
  /(^|[./])anthropic\.claude/.test(modelId) || modelId.startsWith('claude-');
