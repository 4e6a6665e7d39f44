/** The channel type catalogue of the console spec §3: id, key, display label and badge colour. */
export interface ChannelType {
  readonly key: number;
  readonly text: string;
  readonly value: number;
  readonly color: string;
}

const row = (value: number, text: string, color: string): ChannelType => ({ key: value, text, value, color });

export const CHANNEL_TYPES: readonly ChannelType[] = [
  row(1, 'OpenAI', 'green'),
  row(14, 'Anthropic Claude', 'black'),
  row(33, 'AWS', 'black'),
  row(3, 'Azure OpenAI', 'olive'),
  row(11, 'Google PaLM2', 'orange'),
  row(24, 'Google Gemini', 'orange'),
  row(28, 'Mistral AI', 'orange'),
  row(41, 'Novita', 'purple'),
  row(40, 'ByteDance Doubao', 'blue'),
  row(15, 'Baidu Wenxin Qianfan', 'blue'),
  row(17, 'Alibaba Tongyi Qianwen', 'orange'),
  row(18, 'iFlytek Spark', 'blue'),
  row(16, 'Zhipu ChatGLM', 'violet'),
  row(19, '360 Zhinao', 'blue'),
  row(25, 'Moonshot AI', 'black'),
  row(23, 'Tencent Hunyuan', 'teal'),
  row(26, 'Baichuan', 'orange'),
  row(27, 'MiniMax', 'red'),
  row(29, 'Groq', 'orange'),
  row(30, 'Ollama', 'black'),
  row(31, '01.AI', 'green'),
  row(32, 'StepFun', 'blue'),
  row(34, 'Coze', 'blue'),
  row(35, 'Cohere', 'blue'),
  row(36, 'DeepSeek', 'black'),
  row(37, 'Cloudflare', 'orange'),
  row(38, 'DeepL', 'black'),
  row(39, 'together.ai', 'blue'),
  row(42, 'VertexAI', 'blue'),
  row(43, 'Proxy', 'blue'),
  row(44, 'SiliconFlow', 'blue'),
  row(45, 'xAI', 'blue'),
  row(8, 'Custom channel', 'pink'),
  row(22, 'Knowledge base: FastGPT', 'blue'),
  row(21, 'Knowledge base: AI Proxy', 'purple'),
  row(20, 'Proxy: OpenRouter', 'black'),
  row(2, 'Proxy: API2D', 'blue'),
  row(5, 'Proxy: OpenAI-SB', 'brown'),
  row(7, 'Proxy: OhMyGPT', 'purple'),
  row(10, 'Proxy: AI Proxy', 'purple'),
  row(4, 'Proxy: CloseAI', 'teal'),
  row(6, 'Proxy: OpenAI Max', 'violet'),
  row(9, 'Proxy: AI.LS', 'yellow'),
  row(12, 'Proxy: API2GPT', 'blue'),
  row(13, 'Proxy: AIGC2D', 'purple'),
];

export const CHANNEL_TYPE_IDS: readonly number[] = CHANNEL_TYPES.map((type) => type.value);

export const isChannelType = (value: number): boolean => CHANNEL_TYPE_IDS.includes(value);
