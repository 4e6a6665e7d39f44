import type { z } from 'zod';
import { clientFormatSchema, reasoningEffortSchema } from '../../lib/stored-conversation.js';

/** The client formats the playground speaks, each through Sluice's own route for it. */
export const CLIENT_FORMATS = clientFormatSchema.options;
export type ClientFormat = z.infer<typeof clientFormatSchema>;

export const FORMAT_PATHS: Readonly<Record<ClientFormat, string>> = {
  openai: '/v1/chat/completions',
  anthropic: '/v1/messages',
  responses: '/v1/responses',
};

export const REASONING_EFFORTS = reasoningEffortSchema.options;
export type ReasoningEffort = z.infer<typeof reasoningEffortSchema>;

/** Anthropic's Messages API takes a thinking budget, not an effort: the tokens each effort allows. */
export const THINKING_BUDGETS: Readonly<Record<ReasoningEffort, number>> = {
  low: 1024,
  medium: 4096,
  high: 16_384,
};

/** Anthropic requires max_tokens: this when the user leaves it empty. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

export interface ChatSettings {
  readonly format: ClientFormat;
  readonly model: string;
  readonly system: string;
  readonly temperature?: number | undefined;
  readonly maxTokens?: number | undefined;
  readonly effort?: ReasoningEffort | undefined;
}

/** A turn as sent: its text and the images (data URLs) of a user's turn. */
export interface SentTurn {
  readonly role: 'user' | 'assistant';
  readonly text: string;
  readonly images?: readonly string[] | undefined;
}

export interface ChatRequest {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: Record<string, unknown>;
}

/** `data:image/png;base64,AAAA` → its media type and base64 data. */
export const splitDataUrl = (url: string): { mediaType: string; data: string } => {
  const match = /^data:([^;,]+)(?:;[^,]*)?,(.*)$/s.exec(url);
  return { mediaType: match?.[1] ?? 'application/octet-stream', data: match?.[2] ?? '' };
};

const defined = (entries: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined));

const openAiMessages = (settings: ChatSettings, turns: readonly SentTurn[]) => [
  ...(settings.system.trim() === '' ? [] : [{ role: 'system', content: settings.system }]),
  ...turns.map((turn) =>
    turn.images && turn.images.length > 0
      ? {
          role: turn.role,
          content: [
            ...(turn.text === '' ? [] : [{ type: 'text', text: turn.text }]),
            ...turn.images.map((url) => ({ type: 'image_url', image_url: { url } })),
          ],
        }
      : { role: turn.role, content: turn.text },
  ),
];

const anthropicMessages = (turns: readonly SentTurn[]) =>
  turns.map((turn) =>
    turn.images && turn.images.length > 0
      ? {
          role: turn.role,
          content: [
            ...turn.images.map((url) => {
              const { mediaType, data } = splitDataUrl(url);
              return { type: 'image', source: { type: 'base64', media_type: mediaType, data } };
            }),
            ...(turn.text === '' ? [] : [{ type: 'text', text: turn.text }]),
          ],
        }
      : { role: turn.role, content: turn.text },
  );

const responsesInput = (turns: readonly SentTurn[]) =>
  turns.map((turn) =>
    turn.role === 'assistant'
      ? { role: 'assistant', content: [{ type: 'output_text', text: turn.text }] }
      : {
          role: 'user',
          content: [
            ...(turn.text === '' ? [] : [{ type: 'input_text', text: turn.text }]),
            ...(turn.images ?? []).map((url) => ({ type: 'input_image', image_url: url })),
          ],
        },
  );

const anthropicBody = (settings: ChatSettings, turns: readonly SentTurn[]) => {
  const budget = settings.effort === undefined ? undefined : THINKING_BUDGETS[settings.effort];
  const maxTokens = settings.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS;
  return defined({
    model: settings.model,
    system: settings.system.trim() === '' ? undefined : settings.system,
    messages: anthropicMessages(turns),
    // The thinking budget counts within max_tokens, which must exceed it.
    max_tokens: budget === undefined ? maxTokens : Math.max(maxTokens, budget + 1024),
    // Anthropic refuses a temperature other than 1 with thinking on.
    temperature: budget === undefined ? settings.temperature : undefined,
    thinking: budget === undefined ? undefined : { type: 'enabled', budget_tokens: budget },
    stream: true,
  });
};

/** The streamed request of a conversation in a client format, sent with the key `sk-…`. */
export const buildChatRequest = (
  settings: ChatSettings,
  turns: readonly SentTurn[],
  key: string,
): ChatRequest => {
  const headers: Record<string, string> = {
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
  };
  switch (settings.format) {
    case 'openai':
      return {
        path: FORMAT_PATHS.openai,
        headers,
        body: defined({
          model: settings.model,
          messages: openAiMessages(settings, turns),
          temperature: settings.temperature,
          max_tokens: settings.maxTokens,
          reasoning_effort: settings.effort,
          stream: true,
          stream_options: { include_usage: true },
        }),
      };
    case 'anthropic':
      return {
        path: FORMAT_PATHS.anthropic,
        headers: { ...headers, 'anthropic-version': '2023-06-01' },
        body: anthropicBody(settings, turns),
      };
    case 'responses':
      return {
        path: FORMAT_PATHS.responses,
        headers,
        body: defined({
          model: settings.model,
          instructions: settings.system.trim() === '' ? undefined : settings.system,
          input: responsesInput(turns),
          temperature: settings.temperature,
          max_output_tokens: settings.maxTokens,
          reasoning: settings.effort === undefined ? undefined : { effort: settings.effort },
          stream: true,
        }),
      };
  }
};

/** Models known to take images (by name): the playground offers attachments for these. */
const VISION_MODELS =
  /gpt-4o|gpt-4\.1|gpt-4-turbo|gpt-4-vision|gpt-5|chatgpt-4o|\bo[134]\b|o[34]-mini|claude-(3|sonnet|opus|haiku)|gemini|vision|[-_.]vl\b|-vl-|qwen.*vl|glm-4(\.\d)?v|pixtral|llava|llama-4|grok-(2-vision|4)|mistral-(small|medium)/i;

export const takesImages = (model: string): boolean => VISION_MODELS.test(model);
