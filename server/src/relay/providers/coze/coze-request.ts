import type { ChannelMeta } from '../adaptor.js';
import { contentText, isSystemRole, readChatRequest } from '../openai-chat-request.js';

/** The bot a model names: `bot-7342…` or `7342…` (one-api's convention). */
export const botIdOf = (model: string): string => model.replace(/^bot-/, '');

/** The v2 chat path one-api called: a channel whose base URL ends with it (or `api_version: v2`) keeps it. */
const V2_PATH = /\/open_api\/v2(\/chat)?$/;

export const isCozeV2 = (channel: ChannelMeta): boolean =>
  V2_PATH.test(channel.baseUrl) || channel.config['api_version'] === 'v2';

export const cozeUrlOf = (channel: ChannelMeta): string =>
  V2_PATH.test(channel.baseUrl)
    ? channel.baseUrl.replace(V2_PATH, '/open_api/v2/chat')
    : `${channel.baseUrl}${isCozeV2(channel) ? '/open_api/v2/chat' : '/v3/chat'}`;

const userOf = (channel: ChannelMeta, user: string | null | undefined): string =>
  channel.config['user_id'] || user || 'sluice';

type Json = Record<string, unknown>;

/** The conversation as Coze's messages: user and assistant text (the bot keeps its own persona). */
const messagesOf = (body: Json) =>
  readChatRequest(body)
    .messages.filter((message) => !isSystemRole(message.role) && message.role !== 'tool')
    .map((message) => ({
      role: message.role === 'assistant' ? 'assistant' : 'user',
      content: contentText(message.content),
      content_type: 'text',
    }));

/**
 * The v3 chat body (`POST /v3/chat`): always a stream (a non-stream request gathers it), the
 * conversation as `additional_messages`.
 */
export const cozeV3Body = (body: Json, model: string, channel: ChannelMeta): Json => ({
  bot_id: botIdOf(model),
  user_id: userOf(channel, readChatRequest(body).user),
  stream: true,
  additional_messages: messagesOf(body),
});

/** The v2 chat body (`POST /open_api/v2/chat`), as one-api sent it: the last user message as `query`. */
export const cozeV2Body = (body: Json, model: string, channel: ChannelMeta, stream: boolean): Json => {
  const messages = messagesOf(body);
  const last = messages.findLastIndex((message) => message.role === 'user');
  return {
    bot_id: botIdOf(model),
    user: userOf(channel, readChatRequest(body).user),
    query: last === -1 ? '' : (messages[last]?.content ?? ''),
    chat_history: messages.filter((_, index) => index !== last),
    stream,
  };
};
