/** What a Bedrock double's Claude answers are made of (the double's state at the time). */
export interface ClaudeAnswerState {
  readonly reply: string;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
  /** False: answer text even when tools are offered (as a model that needs none; agent CLIs offer them every turn). */
  readonly callsTools: boolean;
}

type Json = Record<string, unknown>;

export const CLAUDE_TOOL_ID = 'toolu_bdrk_01A09q90qw90lq917835lq9';
const ARGS = { location: 'Paris' };
export const CLAUDE_THINKING = 'The user asks about the weather; 先想一想 🤔.';
export const CLAUDE_SIGNATURE = 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds';

/** The first tool offered, unless the last message carries a tool result. */
const toolOf = (body: Json, state: ClaudeAnswerState): string | undefined => {
  if (!state.callsTools) return undefined;
  const messages = (body['messages'] ?? []) as { content?: unknown }[];
  if (JSON.stringify(messages.at(-1)?.content ?? '').includes('tool_result')) return undefined;
  return ((body['tools'] ?? []) as { name?: unknown }[])
    .map((tool) => tool.name)
    .find((name): name is string => typeof name === 'string');
};

/** Extended thinking asked for (`thinking: {type: "enabled", …}`). */
const thinks = (body: Json): boolean =>
  (body['thinking'] as { type?: unknown } | undefined)?.type === 'enabled';

/** InvokeModel's answer to a Claude body: Anthropic's message (thinking first when asked, a tool call when offered). */
export const claudeMessage = (body: Json, state: ClaudeAnswerState): Json => {
  const tool = toolOf(body, state);
  return {
    id: 'msg_bdrk_double',
    type: 'message',
    role: 'assistant',
    model: 'claude-3-7-sonnet-20250219',
    content: [
      ...(thinks(body) ? [{ type: 'thinking', thinking: CLAUDE_THINKING, signature: CLAUDE_SIGNATURE }] : []),
      tool
        ? { type: 'tool_use', id: CLAUDE_TOOL_ID, name: tool, input: ARGS }
        : { type: 'text', text: state.reply },
    ],
    stop_reason: tool ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: state.usage.inputTokens, output_tokens: state.usage.outputTokens },
  };
};

const halves = (text: string): [string, string] => {
  const half = Math.ceil(text.length / 2);
  return [text.slice(0, half), text.slice(half)];
};

/** The events of one content block: its start, its deltas, its stop. */
const blockEvents = (index: number, start: Json, deltas: readonly Json[]): Json[] => [
  { type: 'content_block_start', index, content_block: start },
  ...deltas.map((delta) => ({ type: 'content_block_delta', index, delta })),
  { type: 'content_block_stop', index },
];

/**
 * InvokeModelWithResponseStream's Anthropic events for a Claude body (as the frames' `bytes`
 * carry them): message_start with the input, a thinking block when asked, a tool call or the
 * reply in two deltas, message_delta with the output, message_stop with Bedrock's metrics.
 */
export const claudeStreamEvents = (body: Json, state: ClaudeAnswerState): Json[] => {
  const tool = toolOf(body, state);
  const { inputTokens, outputTokens } = state.usage;
  const events: Json[] = [
    {
      type: 'message_start',
      message: {
        id: 'msg_bdrk_double',
        type: 'message',
        role: 'assistant',
        model: 'claude-3-7-sonnet-20250219',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: inputTokens, output_tokens: 1 },
      },
    },
  ];
  let index = 0;
  if (thinks(body))
    events.push(
      ...blockEvents(index++, { type: 'thinking', thinking: '', signature: '' }, [
        ...halves(CLAUDE_THINKING).map((thinking) => ({ type: 'thinking_delta', thinking })),
        { type: 'signature_delta', signature: CLAUDE_SIGNATURE },
      ]),
    );
  events.push(
    ...(tool
      ? blockEvents(
          index,
          { type: 'tool_use', id: CLAUDE_TOOL_ID, name: tool, input: {} },
          halves(JSON.stringify(ARGS)).map((partial_json) => ({ type: 'input_json_delta', partial_json })),
        )
      : blockEvents(
          index,
          { type: 'text', text: '' },
          halves(state.reply).map((text) => ({ type: 'text_delta', text })),
        )),
    {
      type: 'message_delta',
      delta: { stop_reason: tool ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: outputTokens },
    },
    {
      type: 'message_stop',
      'amazon-bedrock-invocationMetrics': {
        inputTokenCount: inputTokens,
        outputTokenCount: outputTokens,
        invocationLatency: 812,
        firstByteLatency: 305,
      },
    },
  );
  return events;
};
