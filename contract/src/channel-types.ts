/** The channel type catalogue of the console spec §3: id, key, display label and badge colour. */
export interface ChannelType {
  readonly key: number;
  readonly text: string;
  readonly value: number;
  readonly color: string;
}

/**
 * Every channel type by name, as one-api's `channeltype` constants (the numbers are stored in
 * `channels.type`). Name a type by this table everywhere; a bare number outside the catalogue fails a test.
 */
export const CHANNEL_TYPE = {
  openAi: 1,
  api2d: 2,
  azure: 3,
  closeAi: 4,
  openAiSb: 5,
  openAiMax: 6,
  ohMyGpt: 7,
  custom: 8,
  ails: 9,
  aiProxy: 10,
  palm: 11,
  api2gpt: 12,
  aigc2d: 13,
  anthropic: 14,
  baidu: 15,
  zhipu: 16,
  ali: 17,
  xunfei: 18,
  ai360: 19,
  openRouter: 20,
  aiProxyLibrary: 21,
  fastGpt: 22,
  tencent: 23,
  gemini: 24,
  moonshot: 25,
  baichuan: 26,
  minimax: 27,
  mistral: 28,
  groq: 29,
  ollama: 30,
  lingYiWanWu: 31,
  stepFun: 32,
  aws: 33,
  coze: 34,
  cohere: 35,
  deepSeek: 36,
  cloudflare: 37,
  deepL: 38,
  togetherAi: 39,
  doubao: 40,
  novita: 41,
  vertexAi: 42,
  proxy: 43,
  siliconFlow: 44,
  xai: 45,
} as const;

export type ChannelTypeName = keyof typeof CHANNEL_TYPE;
export type ChannelTypeId = (typeof CHANNEL_TYPE)[ChannelTypeName];

/** Every name of CHANNEL_TYPE (the keys of our own constant, so the cast is exact). */
export const CHANNEL_TYPE_NAMES = Object.keys(CHANNEL_TYPE) as readonly ChannelTypeName[];

const row = (value: number, text: string, color: string): ChannelType => ({ key: value, text, value, color });

export const CHANNEL_TYPES: readonly ChannelType[] = [
  row(CHANNEL_TYPE.openAi, 'OpenAI', 'green'),
  row(CHANNEL_TYPE.anthropic, 'Anthropic Claude', 'black'),
  row(CHANNEL_TYPE.aws, 'AWS', 'black'),
  row(CHANNEL_TYPE.azure, 'Azure OpenAI', 'olive'),
  row(CHANNEL_TYPE.palm, 'Google PaLM2', 'orange'),
  row(CHANNEL_TYPE.gemini, 'Google Gemini', 'orange'),
  row(CHANNEL_TYPE.mistral, 'Mistral AI', 'orange'),
  row(CHANNEL_TYPE.novita, 'Novita', 'purple'),
  row(CHANNEL_TYPE.doubao, 'ByteDance Doubao', 'blue'),
  row(CHANNEL_TYPE.baidu, 'Baidu Wenxin Qianfan', 'blue'),
  row(CHANNEL_TYPE.ali, 'Alibaba Tongyi Qianwen', 'orange'),
  row(CHANNEL_TYPE.xunfei, 'iFlytek Spark', 'blue'),
  row(CHANNEL_TYPE.zhipu, 'Zhipu ChatGLM', 'violet'),
  row(CHANNEL_TYPE.ai360, '360 Zhinao', 'blue'),
  row(CHANNEL_TYPE.moonshot, 'Moonshot AI', 'black'),
  row(CHANNEL_TYPE.tencent, 'Tencent Hunyuan', 'teal'),
  row(CHANNEL_TYPE.baichuan, 'Baichuan', 'orange'),
  row(CHANNEL_TYPE.minimax, 'MiniMax', 'red'),
  row(CHANNEL_TYPE.groq, 'Groq', 'orange'),
  row(CHANNEL_TYPE.ollama, 'Ollama', 'black'),
  row(CHANNEL_TYPE.lingYiWanWu, '01.AI', 'green'),
  row(CHANNEL_TYPE.stepFun, 'StepFun', 'blue'),
  row(CHANNEL_TYPE.coze, 'Coze', 'blue'),
  row(CHANNEL_TYPE.cohere, 'Cohere', 'blue'),
  row(CHANNEL_TYPE.deepSeek, 'DeepSeek', 'black'),
  row(CHANNEL_TYPE.cloudflare, 'Cloudflare', 'orange'),
  row(CHANNEL_TYPE.deepL, 'DeepL', 'black'),
  row(CHANNEL_TYPE.togetherAi, 'together.ai', 'blue'),
  row(CHANNEL_TYPE.vertexAi, 'VertexAI', 'blue'),
  row(CHANNEL_TYPE.proxy, 'Proxy', 'blue'),
  row(CHANNEL_TYPE.siliconFlow, 'SiliconFlow', 'blue'),
  row(CHANNEL_TYPE.xai, 'xAI', 'blue'),
  row(CHANNEL_TYPE.custom, 'Custom channel', 'pink'),
  row(CHANNEL_TYPE.fastGpt, 'Knowledge base: FastGPT', 'blue'),
  row(CHANNEL_TYPE.aiProxyLibrary, 'Knowledge base: AI Proxy', 'purple'),
  row(CHANNEL_TYPE.openRouter, 'Proxy: OpenRouter', 'black'),
  row(CHANNEL_TYPE.api2d, 'Proxy: API2D', 'blue'),
  row(CHANNEL_TYPE.openAiSb, 'Proxy: OpenAI-SB', 'brown'),
  row(CHANNEL_TYPE.ohMyGpt, 'Proxy: OhMyGPT', 'purple'),
  row(CHANNEL_TYPE.aiProxy, 'Proxy: AI Proxy', 'purple'),
  row(CHANNEL_TYPE.closeAi, 'Proxy: CloseAI', 'teal'),
  row(CHANNEL_TYPE.openAiMax, 'Proxy: OpenAI Max', 'violet'),
  row(CHANNEL_TYPE.ails, 'Proxy: AI.LS', 'yellow'),
  row(CHANNEL_TYPE.api2gpt, 'Proxy: API2GPT', 'blue'),
  row(CHANNEL_TYPE.aigc2d, 'Proxy: AIGC2D', 'purple'),
];

export const CHANNEL_TYPE_IDS: readonly number[] = CHANNEL_TYPES.map((type) => type.value);

export const isChannelType = (value: number): boolean => CHANNEL_TYPE_IDS.includes(value);
