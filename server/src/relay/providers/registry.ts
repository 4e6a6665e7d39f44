import type { Adaptor, ChannelMeta, RelayMode } from './adaptor.js';
import { anthropicAdaptor } from './anthropic/anthropic-adaptor.js';
import { azureAdaptor } from './azure/azure-adaptor.js';
import { geminiAdaptor } from './gemini/gemini-adaptor.js';
import { createOpenAiAdaptor, defaultUrl, type UrlBuilder } from './openai/openai-adaptor.js';
import { DEFAULT_MODELS } from './provider-models.js';

export interface Provider {
  /** Undefined while Sluice has no adaptor for the type: the relay answers a clear error. */
  readonly adaptor?: Adaptor;
  /** Used when the channel's base_url is empty; '' where the type needs one (Azure, custom). */
  readonly baseUrl: string;
  readonly models: readonly string[];
}

const openAi = createOpenAiAdaptor();
const compatible = (baseUrl: string, adaptor: Adaptor = openAi): Omit<Provider, 'models'> => ({
  adaptor,
  baseUrl,
});
/** The provider's own API: translated by its adaptor (none yet where Sluice has no adaptor). */
const native = (baseUrl: string, adaptor?: Adaptor): Omit<Provider, 'models'> =>
  adaptor ? { adaptor, baseUrl } : { baseUrl };

const CHAT: readonly RelayMode[] = ['chat'];

/** OpenAI behind Cloudflare's AI Gateway drops the /v1 prefix. */
const openAiUrl: UrlBuilder = (channel, path, mode) =>
  channel.baseUrl.startsWith('https://gateway.ai.cloudflare.com')
    ? `${channel.baseUrl}${path.replace(/^\/v1/, '')}`
    : defaultUrl(channel, path, mode);

const doubaoUrl: UrlBuilder = (channel, _path, mode) =>
  `${channel.baseUrl}/api/v3/${mode === 'embeddings' ? 'embeddings' : 'chat/completions'}`;

const cloudflareUrl: UrlBuilder = (channel: ChannelMeta, path) => {
  const prefix =
    channel.baseUrl.startsWith('https://gateway.ai.cloudflare.com') && channel.baseUrl.endsWith('/workers-ai')
      ? channel.baseUrl
      : `${channel.baseUrl}/client/v4/accounts/${encodeURIComponent(channel.config['user_id'] ?? '')}/ai`;
  return `${prefix}${path}`;
};

/**
 * The one provider registry: channel type id → adaptor, default base URL and default models. An
 * OpenAI-compatible provider is a row, not a folder.
 */
const ROWS: Record<number, Omit<Provider, 'models'>> = {
  1: compatible('https://api.openai.com', createOpenAiAdaptor(openAiUrl)),
  2: compatible('https://oa.api2d.net'),
  3: compatible('', azureAdaptor),
  4: compatible('https://api.closeai-proxy.xyz'),
  5: compatible('https://api.openai-sb.com'),
  6: compatible('https://api.openaimax.com'),
  7: compatible('https://api.ohmygpt.com'),
  8: compatible(''),
  9: compatible('https://api.caipacity.com'),
  10: compatible('https://api.aiproxy.io'),
  11: native('https://generativelanguage.googleapis.com'),
  12: compatible('https://api.api2gpt.com'),
  13: compatible('https://api.aigc2d.com'),
  14: native('https://api.anthropic.com', anthropicAdaptor),
  15: native('https://aip.baidubce.com'),
  16: native('https://open.bigmodel.cn'),
  17: native('https://dashscope.aliyuncs.com'),
  18: native(''),
  19: compatible('https://ai.360.cn'),
  20: compatible(
    'https://openrouter.ai/api',
    createOpenAiAdaptor(defaultUrl, {
      'HTTP-Referer': 'https://github.com/songquanpeng/one-api',
      'X-Title': 'Sluice',
    }),
  ),
  21: native('https://api.aiproxy.io'),
  22: compatible('https://fastgpt.run/api/openapi'),
  23: native('https://hunyuan.tencentcloudapi.com'),
  24: native('https://generativelanguage.googleapis.com', geminiAdaptor),
  25: compatible('https://api.moonshot.cn'),
  26: compatible('https://api.baichuan-ai.com'),
  27: compatible(
    'https://api.minimax.chat',
    createOpenAiAdaptor((channel) => `${channel.baseUrl}/v1/text/chatcompletion_v2`, {}, CHAT),
  ),
  28: compatible('https://api.mistral.ai'),
  29: compatible('https://api.groq.com/openai'),
  30: compatible('http://localhost:11434'),
  31: compatible('https://api.lingyiwanwu.com'),
  32: compatible('https://api.stepfun.com'),
  33: native(''),
  34: native('https://api.coze.com'),
  35: native('https://api.cohere.ai'),
  36: compatible('https://api.deepseek.com'),
  37: compatible(
    'https://api.cloudflare.com',
    createOpenAiAdaptor(cloudflareUrl, {}, ['chat', 'embeddings']),
  ),
  38: native('https://api-free.deepl.com'),
  39: compatible('https://api.together.xyz'),
  40: compatible(
    'https://ark.cn-beijing.volces.com',
    createOpenAiAdaptor(doubaoUrl, {}, ['chat', 'embeddings']),
  ),
  41: compatible(
    'https://api.novita.ai/v3/openai',
    createOpenAiAdaptor((channel) => `${channel.baseUrl}/chat/completions`, {}, CHAT),
  ),
  42: native(''),
  43: native(''),
  44: compatible('https://api.siliconflow.cn'),
  45: compatible('https://api.x.ai'),
};

export const PROVIDERS: Readonly<Record<number, Provider>> = Object.fromEntries(
  Object.entries(ROWS).map(([id, row]) => [id, { ...row, models: DEFAULT_MODELS[Number(id)] ?? [] }]),
);

export const providerOf = (type: number): Provider | undefined => PROVIDERS[type];
