import { z } from 'zod';

/**
 * Anthropic's Messages request as the hub reads it (the SDK's `MessageCreateParams`), parsed with
 * zod. Objects are loose: a field the hub cannot use is ignored unless dropping it would change the
 * answer, and then the reader refuses it. A content block type, image source, document source or
 * tool choice the hub has no counterpart for is refused here, by name.
 */

/** How a refusal of what only Anthropic's own API runs ends (see ANTHROPIC_ONLY). */
export const NOT_ON_THIS_CHANNEL = 'is not supported on this channel';

/** The message of a discriminated union that matched no option: names the value it did not know. */
const unsupported =
  (what: string) =>
  (issue: { code?: string; input?: unknown; note?: string }): string | undefined => {
    if (issue.code !== 'invalid_union') return undefined;
    const input = issue.input;
    const type =
      typeof input === 'object' && input !== null ? (input as Record<string, unknown>)['type'] : undefined;
    if (type === undefined) return `${what} needs a type`;
    return `${what} ${JSON.stringify(type)} ${NOT_ON_THIS_CHANNEL}`;
  };

/** `content: "text"` is the same as `content: [{type:'text', text}]`. */
const asBlocks = (value: unknown): unknown =>
  typeof value === 'string' ? [{ type: 'text', text: value }] : value;

const textBlock = z.looseObject({ type: z.literal('text'), text: z.string() });

const imageBlock = z.looseObject({
  type: z.literal('image'),
  source: z.discriminatedUnion(
    'type',
    [
      z.looseObject({ type: z.literal('base64'), media_type: z.string().min(1), data: z.string() }),
      z.looseObject({ type: z.literal('url'), url: z.string().min(1) }),
    ],
    { error: unsupported('image source') },
  ),
});

const documentBlock = z.looseObject({
  type: z.literal('document'),
  title: z.string().nullish(),
  source: z.discriminatedUnion(
    'type',
    [
      z.looseObject({ type: z.literal('base64'), media_type: z.string().min(1), data: z.string() }),
      z.looseObject({ type: z.literal('text'), data: z.string() }),
    ],
    { error: unsupported('document source') },
  ),
});

const searchResultBlock = z.looseObject({
  type: z.literal('search_result'),
  source: z.string().nullish(),
  title: z.string().nullish(),
  content: z.array(textBlock),
});

const toolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z
    .preprocess(
      asBlocks,
      z.array(
        z.discriminatedUnion('type', [textBlock, imageBlock, documentBlock, searchResultBlock], {
          error: unsupported('tool result block'),
        }),
        { error: 'must be a string or a list of content blocks' },
      ),
    )
    .nullish(),
  is_error: z.boolean().nullish(),
});

const toolUseBlock = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.unknown(),
});

/** Thinking blocks mean something only to Anthropic: read loosely, then dropped. */
const thinkingBlock = z.looseObject({ type: z.literal('thinking') });
const redactedThinkingBlock = z.looseObject({ type: z.literal('redacted_thinking') });

const contentBlock = z.discriminatedUnion(
  'type',
  [
    textBlock,
    imageBlock,
    documentBlock,
    searchResultBlock,
    toolResultBlock,
    toolUseBlock,
    thinkingBlock,
    redactedThinkingBlock,
  ],
  { error: unsupported('content block type') },
);

const message = z.looseObject({
  role: z.enum(['user', 'assistant', 'system'], { error: 'role must be user or assistant' }),
  content: z.preprocess(
    asBlocks,
    z.array(contentBlock, { error: 'content must be a string or a list of content blocks' }),
  ),
});

const system = z.preprocess(
  asBlocks,
  z.array(textBlock, { error: 'system must be a string or a list of text blocks' }),
);

const tool = z.looseObject({
  type: z.string().nullish(),
  name: z.string({ error: 'every tool needs a name' }).min(1, 'every tool needs a name'),
  description: z.string().nullish(),
  input_schema: z.record(z.string(), z.unknown()).nullish(),
});

const parallel = { disable_parallel_tool_use: z.boolean().nullish() };

const toolChoice = z.discriminatedUnion(
  'type',
  [
    z.looseObject({ type: z.literal('auto'), ...parallel }),
    z.looseObject({ type: z.literal('any'), ...parallel }),
    z.looseObject({ type: z.literal('tool'), name: z.string().min(1), ...parallel }),
    z.looseObject({ type: z.literal('none') }),
  ],
  { error: unsupported('tool_choice type') },
);

const outputFormat = z.looseObject({
  type: z.literal('json_schema'),
  schema: z.record(z.string(), z.unknown()),
});

const number = z.number().nullish();

/** The fields of a Messages request and of a count_tokens request alike. */
const shared = {
  model: z.string({ error: 'model is required' }).trim().min(1, 'model is required'),
  messages: z
    .array(message, { error: 'messages must be a list of messages' })
    .min(1, 'messages must not be empty'),
  system: system.nullish(),
  tools: z.array(tool, { error: 'tools must be a list of tools' }).nullish(),
  tool_choice: toolChoice.nullish(),
  thinking: z.looseObject({ type: z.string(), budget_tokens: z.number().int().min(1).nullish() }).nullish(),
  output_config: z.looseObject({ effort: z.string().nullish(), format: outputFormat.nullish() }).nullish(),
  /** The structured outputs beta's earlier name for output_config.format. */
  output_format: outputFormat.nullish(),
  /** The MCP connector beta: Anthropic calls the servers itself, which no other channel can do. */
  mcp_servers: z.array(z.unknown()).max(0, `mcp_servers ${NOT_ON_THIS_CHANNEL}`).nullish(),
};

export const anthropicCountRequest = z.looseObject(shared);

export const anthropicMessagesRequest = z.looseObject({
  ...shared,
  max_tokens: z
    .number({ error: 'max_tokens is required' })
    .int('max_tokens must be an integer')
    .min(1, 'max_tokens must be at least 1'),
  stream: z.boolean({ error: 'stream must be true or false' }).nullish(),
  temperature: number,
  top_p: number,
  top_k: number,
  stop_sequences: z.array(z.string(), { error: 'stop_sequences must be a list of strings' }).nullish(),
  metadata: z.looseObject({ user_id: z.string().nullish() }).nullish(),
});

export type AnthropicCountRequest = z.infer<typeof anthropicCountRequest>;
export type AnthropicMessagesRequest = z.infer<typeof anthropicMessagesRequest>;
export type AnthropicMessage = z.infer<typeof message>;
export type AnthropicContentBlock = z.infer<typeof contentBlock>;
export type AnthropicToolResultBlock = z.infer<typeof toolResultBlock>;
export type AnthropicTool = z.infer<typeof tool>;
export type AnthropicToolChoice = z.infer<typeof toolChoice>;
