import { CHANNEL_TYPE, CHANNEL_TYPE_NAMES, type ChannelTypeName } from '@sluice/contract/channel-types';
import type { Adaptor, ChannelMeta, RelayMode } from './adaptor.js';
import { anthropicAdaptor } from './anthropic/index.js';
import { azureAdaptor } from './azure/index.js';
import { bedrockAdaptor } from './bedrock/index.js';
import { baiduAdaptor } from './baidu/index.js';
import { zhipuAdaptor } from './zhipu/index.js';
import { aliAdaptor } from './ali/index.js';
import { geminiAdaptor } from './gemini/index.js';
import { sparkAdaptor, SPARK_BASE_URL } from './spark/index.js';
import { tencentAdaptor } from './tencent/index.js';
import { createOpenAiAdaptor, defaultUrl, responsesNative, type UrlBuilder } from './openai/index.js';
import { vertexAdaptor } from './vertex/index.js';
import { cohereAdaptor } from './cohere/index.js';
import { deeplAdaptor } from './deepl/index.js';
import { palmAdaptor } from './palm/index.js';
import { cozeAdaptor } from './coze/index.js';
import { aiProxyLibraryAdaptor } from './aiproxy/index.js';
import { BALANCE_READERS, type BalanceReader } from './balance-readers.js';
import { DEFAULT_MODELS } from './provider-models.js';

/** Everything the server knows of one channel type: the registry's row. */
export interface Provider {
  /** The id stored in `channels.type`. */
  readonly type: number;
  readonly name: ChannelTypeName;
  /** Undefined while Sluice has no adaptor for the type: the relay answers a clear error. */
  readonly adaptor?: Adaptor;
  /** Used when the channel's base_url is empty; '' where the type needs one (Azure, custom). */
  readonly baseUrl: string;
  /** The type's default models (GET /api/models, the console's model picker). */
  readonly models: readonly string[];
  /** `owned_by` of the type's models in GET /v1/models: one-api's adaptor name, lower-cased. */
  readonly owner: string;
  /** How the channel's balance is read; absent where the provider offers no balance API. */
  readonly balance?: BalanceReader;
  /** The config field that one-api's legacy `other` column holds for this type (folded in when unset). */
  readonly otherField?: 'api_version' | 'library_id' | 'plugin';
}

type Row = Omit<Provider, 'type' | 'name' | 'models'>;
type Extra = Partial<Pick<Row, 'adaptor' | 'balance' | 'otherField'>>;

const openAi = createOpenAiAdaptor();
/** A provider that speaks OpenAI's API: the OpenAI adaptor unless the row names another. */
const compatible = (owner: string, baseUrl: string, extra: Extra = {}): Row => ({
  owner,
  baseUrl,
  ...extra,
  adaptor: extra.adaptor ?? openAi,
});
/** The provider's own API: translated by its adaptor (none yet where Sluice has no adaptor). */
const native = (owner: string, baseUrl: string, extra: Extra = {}): Row => ({ owner, baseUrl, ...extra });

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
 * The one provider registry: channel type → adaptor, default base URL, owner, balance reader and the
 * meaning of the legacy `other` field (models come from provider-models.ts by the same name). An
 * OpenAI-compatible provider is a row, not a folder. Keyed by CHANNEL_TYPE's names: a type without a
 * row does not compile.
 */
const ROWS: Readonly<Record<ChannelTypeName, Row>> = {
  openAi: compatible('openai', 'https://api.openai.com', {
    // OpenAI's own API serves the Responses API: a Responses client passes through untouched.
    adaptor: { ...createOpenAiAdaptor(openAiUrl), native: [responsesNative(openAiUrl)] },
    balance: BALANCE_READERS.openAi,
  }),
  api2d: compatible('openai', 'https://oa.api2d.net'),
  azure: compatible('azure', '', { adaptor: azureAdaptor, otherField: 'api_version' }),
  closeAi: compatible('openai', 'https://api.closeai-proxy.xyz', { balance: BALANCE_READERS.closeAi }),
  openAiSb: compatible('openai', 'https://api.openai-sb.com', { balance: BALANCE_READERS.openAiSb }),
  openAiMax: compatible('openai', 'https://api.openaimax.com'),
  ohMyGpt: compatible('openai', 'https://api.ohmygpt.com'),
  custom: compatible('openai', '', { balance: BALANCE_READERS.custom }),
  ails: compatible('openai', 'https://api.caipacity.com'),
  aiProxy: compatible('openai', 'https://api.aiproxy.io', { balance: BALANCE_READERS.aiProxy }),
  palm: native('google palm', 'https://generativelanguage.googleapis.com', { adaptor: palmAdaptor }),
  api2gpt: compatible('openai', 'https://api.api2gpt.com', { balance: BALANCE_READERS.api2gpt }),
  aigc2d: compatible('openai', 'https://api.aigc2d.com', { balance: BALANCE_READERS.aigc2d }),
  anthropic: native('anthropic', 'https://api.anthropic.com', { adaptor: anthropicAdaptor }),
  baidu: native('baidu', 'https://aip.baidubce.com', { adaptor: baiduAdaptor }),
  zhipu: native('zhipu', 'https://open.bigmodel.cn', { adaptor: zhipuAdaptor }),
  ali: native('ali', 'https://dashscope.aliyuncs.com', { adaptor: aliAdaptor, otherField: 'plugin' }),
  xunfei: native('xunfei', SPARK_BASE_URL, { adaptor: sparkAdaptor, otherField: 'api_version' }),
  ai360: compatible('360', 'https://ai.360.cn'),
  openRouter: compatible('openai', 'https://openrouter.ai/api', {
    adaptor: createOpenAiAdaptor(defaultUrl, {
      'HTTP-Referer': 'https://github.com/songquanpeng/one-api',
      'X-Title': 'Sluice',
    }),
    balance: BALANCE_READERS.openRouter,
  }),
  aiProxyLibrary: native('aiproxy', 'https://api.aiproxy.io', {
    adaptor: aiProxyLibraryAdaptor,
    otherField: 'library_id',
  }),
  fastGpt: compatible('openai', 'https://fastgpt.run/api/openapi'),
  tencent: native('tencent', 'https://hunyuan.tencentcloudapi.com', { adaptor: tencentAdaptor }),
  gemini: native('google gemini', 'https://generativelanguage.googleapis.com', {
    adaptor: geminiAdaptor,
    otherField: 'api_version',
  }),
  moonshot: compatible('moonshot', 'https://api.moonshot.cn'),
  baichuan: compatible('baichuan', 'https://api.baichuan-ai.com'),
  minimax: compatible('minimax', 'https://api.minimax.chat', {
    adaptor: createOpenAiAdaptor((channel) => `${channel.baseUrl}/v1/text/chatcompletion_v2`, {}, CHAT),
  }),
  mistral: compatible('mistralai', 'https://api.mistral.ai'),
  groq: compatible('groq', 'https://api.groq.com/openai'),
  ollama: compatible('ollama', 'http://localhost:11434'),
  lingYiWanWu: compatible('lingyiwanwu', 'https://api.lingyiwanwu.com'),
  stepFun: compatible('stepfun', 'https://api.stepfun.com'),
  aws: native('aws', '', { adaptor: bedrockAdaptor }),
  coze: native('coze', 'https://api.coze.com', { adaptor: cozeAdaptor }),
  cohere: native('cohere', 'https://api.cohere.ai', { adaptor: cohereAdaptor }),
  deepSeek: compatible('deepseek', 'https://api.deepseek.com', { balance: BALANCE_READERS.deepSeek }),
  cloudflare: compatible('cloudflare', 'https://api.cloudflare.com', {
    adaptor: createOpenAiAdaptor(cloudflareUrl, {}, ['chat', 'embeddings']),
  }),
  deepL: native('deepl', 'https://api-free.deepl.com', { adaptor: deeplAdaptor }),
  togetherAi: compatible('together.ai', 'https://api.together.xyz'),
  doubao: compatible('doubao', 'https://ark.cn-beijing.volces.com', {
    adaptor: createOpenAiAdaptor(doubaoUrl, {}, ['chat', 'embeddings']),
  }),
  novita: compatible('novita', 'https://api.novita.ai/v3/openai', {
    adaptor: createOpenAiAdaptor((channel) => `${channel.baseUrl}/chat/completions`, {}, CHAT),
  }),
  vertexAi: native('vertexai', '', { adaptor: vertexAdaptor }),
  proxy: native('proxy', ''),
  siliconFlow: compatible('siliconflow', 'https://api.siliconflow.cn', {
    balance: BALANCE_READERS.siliconFlow,
  }),
  xai: compatible('xai', 'https://api.x.ai'),
};

/** The registry by channel type id. */
export const PROVIDERS: Readonly<Record<number, Provider>> = Object.fromEntries(
  CHANNEL_TYPE_NAMES.map((name) => [
    CHANNEL_TYPE[name],
    { ...ROWS[name], type: CHANNEL_TYPE[name], name, models: DEFAULT_MODELS[name] },
  ]),
);

export const providerOf = (type: number): Provider | undefined => PROVIDERS[type];
