/**
 * Prices Sluice ships for models its default lists offer and one-api does not price (one-api bills
 * them at its fallback of 30): the providers' published prices, in one-api's units (a model ratio of
 * 1 ≙ $2 per 1M input tokens; ¥ prices at one-api's RMB of 71 per ¥1 per 1K tokens). one-api's own
 * entries (ratio-defaults.ts) are laid over these, so no one-api id changes price; a test checks that
 * none of these names is one of them.
 */
export const CURRENT_MODEL_RATIO: Readonly<Record<string, number>> = Object.freeze({
  // Anthropic (claude.com/pricing; Bedrock's ids are the same): Sonnet $3, Opus 4/4.1 $15, Opus 4.5
  // $5, Haiku 4.5 $1 per 1M input tokens.
  'claude-3-7-sonnet-20250219': 1.5,
  'claude-sonnet-4-20250514': 1.5,
  'claude-opus-4-20250514': 7.5,
  'claude-opus-4-1-20250805': 7.5,
  'claude-sonnet-4-5-20250929': 1.5,
  'claude-haiku-4-5-20251001': 0.5,
  'claude-opus-4-5-20251101': 2.5,
  // Claude on Vertex AI (`name@version`, Google's prices equal Anthropic's): Haiku 3 $0.25, Haiku 3.5 $0.80.
  'claude-3-haiku@20240307': 0.125,
  'claude-3-sonnet@20240229': 1.5,
  'claude-3-opus@20240229': 7.5,
  'claude-3-5-sonnet@20240620': 1.5,
  'claude-3-5-sonnet-v2@20241022': 1.5,
  'claude-3-5-haiku@20241022': 0.4,
  'claude-3-7-sonnet@20250219': 1.5,
  'claude-sonnet-4@20250514': 1.5,
  'claude-opus-4@20250514': 7.5,
  'claude-opus-4-1@20250805': 7.5,
  'claude-sonnet-4-5@20250929': 1.5,
  'claude-haiku-4-5@20251001': 0.5,
  // Gemini (ai.google.dev/pricing, prompts up to 200K): 2.5 Pro $1.25, 2.5 Flash $0.30, 2.5 Flash-Lite
  // $0.10, 2.0 Flash-Lite $0.075; Vertex AI's versioned 1.5 ids and gemini-pro-vision as one-api prices
  // their siblings; gemini-exp-1206 (an experiment without a price) as gemini-1.5-pro.
  'gemini-2.5-pro': 0.625,
  'gemini-2.5-flash': 0.15,
  'gemini-2.5-flash-lite': 0.05,
  'gemini-2.0-flash-lite-001': 0.0375,
  'gemini-1.5-pro-002': 0.625,
  'gemini-1.5-flash-002': 0.0375,
  'gemini-pro-vision': 0.125,
  'gemini-exp-1206': 0.625,
  // iFlytek Spark (the HTTP API's names): Lite is free; the others as one-api prices the SparkDesk
  // versions they are (¥0.018 / 1K tokens).
  'Spark-Lite': 0,
  'Spark-Pro': 1.2858,
  'Spark-Pro-128K': 1.2858,
  'Spark-Max': 1.2858,
  'Spark-Max-32K': 1.2858,
  'Spark-4.0-Ultra': 1.2858,
  // Tencent Hunyuan: lite is free; pro ¥0.03 / 1K input tokens.
  'hunyuan-lite': 0,
  'hunyuan-pro': 2.13,
  // xAI (docs.x.ai): grok-2 and grok-2-vision $2, grok-vision-beta $5 per 1M input tokens.
  'grok-2': 1,
  'grok-2-1212': 1,
  'grok-2-latest': 1,
  'grok-2-vision': 1,
  'grok-2-vision-1212': 1,
  'grok-2-vision-latest': 1,
  'grok-vision-beta': 2.5,
  // ByteDance Doubao (Volcengine Ark): pro 4k/32k ¥0.0008, pro 128k ¥0.005, lite 4k/32k ¥0.0003,
  // lite 128k ¥0.0008, embedding ¥0.0005 per 1K input tokens.
  'Doubao-pro-4k': 0.0568,
  'Doubao-pro-32k': 0.0568,
  'Doubao-pro-128k': 0.355,
  'Doubao-lite-4k': 0.0213,
  'Doubao-lite-32k': 0.0213,
  'Doubao-lite-128k': 0.0568,
  'Doubao-embedding': 0.0355,
  // MiniMax (api.minimax.chat): Text-01 and VL-01 ¥1 per 1M input tokens.
  'MiniMax-Text-01': 0.071,
  'MiniMax-VL-01': 0.071,
});

/** Their output price / input price where one-api's rules (model-pricing.ts) would say otherwise. */
export const CURRENT_COMPLETION_RATIO: Readonly<Record<string, number>> = Object.freeze({
  // Gemini 2.5 Pro $10, 2.5 Flash $2.50, 2.5 Flash-Lite $0.40, 2.0 Flash-Lite $0.30 per 1M output tokens.
  'gemini-2.5-pro': 8,
  'gemini-2.5-flash': 8.333333333333334,
  'gemini-2.5-flash-lite': 4,
  'gemini-2.0-flash-lite-001': 4,
  // Hunyuan pro ¥0.10 / 1K output tokens.
  'hunyuan-pro': 3.3333333333333335,
  // xAI: grok-2 and grok-2-vision $10, grok-vision-beta $15 per 1M output tokens.
  'grok-2': 5,
  'grok-2-1212': 5,
  'grok-2-latest': 5,
  'grok-2-vision': 5,
  'grok-2-vision-1212': 5,
  'grok-2-vision-latest': 5,
  'grok-vision-beta': 3,
  // Doubao: pro 4k/32k ¥0.002, pro 128k ¥0.009, lite 4k/32k ¥0.0006, lite 128k ¥0.001 per 1K output tokens.
  'Doubao-pro-4k': 2.5,
  'Doubao-pro-32k': 2.5,
  'Doubao-pro-128k': 1.8,
  'Doubao-lite-4k': 2,
  'Doubao-lite-32k': 2,
  'Doubao-lite-128k': 1.25,
  // MiniMax Text-01 and VL-01: ¥8 per 1M output tokens.
  'MiniMax-Text-01': 8,
  'MiniMax-VL-01': 8,
});
