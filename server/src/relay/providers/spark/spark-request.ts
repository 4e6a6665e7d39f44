import { contentText, isSystemRole, readChatRequest } from '../openai-chat-request.js';
import type { SparkVersion } from './spark-versions.js';

type Json = Record<string, unknown>;

/**
 * An OpenAI chat body as Spark's first frame: `header.app_id`, `parameter.chat` (domain,
 * temperature, max_tokens, top_k), `payload.message.text` (role and content; tool results as
 * user turns, as one-api sends them) and `payload.functions.text` for the versions that take them.
 */
export const sparkFrame = (body: Json, appId: string, version: SparkVersion): Json => {
  const request = readChatRequest(body);
  const text = request.messages.map((message) => ({
    role: isSystemRole(message.role) ? 'system' : message.role === 'assistant' ? 'assistant' : 'user',
    content: contentText(message.content),
  }));
  const functions = version.functions
    ? (request.tools ?? []).map((tool) => ({
        name: tool.function.name,
        description: tool.function.description ?? '',
        parameters: tool.function.parameters ?? { type: 'object', properties: {} },
      }))
    : [];
  return {
    header: { app_id: appId, ...(request.user ? { uid: request.user.slice(0, 32) } : {}) },
    parameter: {
      chat: {
        domain: version.domain,
        ...(typeof request.temperature === 'number' ? { temperature: request.temperature } : {}),
        ...(request.max_tokens || request.max_completion_tokens
          ? { max_tokens: request.max_tokens || request.max_completion_tokens }
          : {}),
        ...(typeof request.top_k === 'number' ? { top_k: request.top_k } : {}),
      },
    },
    payload: {
      message: { text },
      ...(functions.length > 0 ? { functions: { text: functions } } : {}),
    },
  };
};
