import type { z } from 'zod';
import { relayError } from '../../../lib/app-error.js';
import { describeZodIssue } from '../../../lib/zod-issue.js';
import { hubMessagesOf } from './anthropic-hub-messages.js';
import {
  anthropicCountRequest,
  anthropicMessagesRequest,
  NOT_ON_THIS_CHANNEL,
  type AnthropicCountRequest,
  type AnthropicTool,
  type AnthropicToolChoice,
} from './anthropic-request-schema.js';

/**
 * The code of a 400 for what only Anthropic's own API runs (its server tools, Files API sources, a
 * content block or option the hub has no counterpart for): the request is valid, but only a channel
 * that speaks Anthropic's format (the native pass-through) can answer it.
 */
export const ANTHROPIC_ONLY = 'anthropic_only';

const invalid = (message: string, code = 'invalid_request') =>
  relayError(400, code, message, 'invalid_request_error');

const read = <T>(schema: z.ZodType<T>, body: unknown): T => {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const message = describeZodIssue(result.error, 'invalid request', true);
  throw invalid(message, message.endsWith(NOT_ON_THIS_CHANNEL) ? ANTHROPIC_ONLY : 'invalid_request');
};

/**
 * Custom tools as function tools. A tool with a `type` of its own (web_search_…, bash_…,
 * text_editor_…, computer_…, code_execution_…) is one of Anthropic's: a channel that does not speak
 * Anthropic's format cannot run it, so the request is refused rather than answered without it.
 */
const hubTools = (tools: readonly AnthropicTool[]) =>
  tools.map((tool, index) => {
    if (tool.type && tool.type !== 'custom')
      throw invalid(
        `tools.${index}.type: the ${tool.type} tool is Anthropic's own and needs a channel that speaks Anthropic's format`,
        ANTHROPIC_ONLY,
      );
    if (!tool.input_schema) throw invalid(`tools.${index}.input_schema is required`);
    return {
      type: 'function',
      function: {
        name: tool.name,
        ...(tool.description ? { description: tool.description } : {}),
        parameters: tool.input_schema,
      },
    };
  });

const hubToolChoice = (choice: AnthropicToolChoice): unknown => {
  switch (choice.type) {
    case 'auto':
      return 'auto';
    case 'any':
      return 'required';
    case 'tool':
      return { type: 'function', function: { name: choice.name } };
    case 'none':
      return 'none';
  }
};

/**
 * Extended thinking as OpenAI's reasoning effort: a budget under 4096 tokens is 'low', under 16384
 * 'medium', else 'high'. Adaptive thinking takes output_config.effort (xhigh and max are 'high').
 * Disabled thinking, or none asked for, sets nothing.
 */
const reasoningEffort = (request: AnthropicCountRequest): string | undefined => {
  const thinking = request.thinking;
  if (thinking?.type === 'enabled') {
    const budget = thinking.budget_tokens;
    if (budget === undefined || budget === null) throw invalid('thinking.budget_tokens is required');
    return budget < 4096 ? 'low' : budget < 16384 ? 'medium' : 'high';
  }
  const effort = request.output_config?.effort;
  if (thinking?.type !== 'adaptive' || !effort) return undefined;
  return effort === 'low' || effort === 'medium' ? effort : 'high';
};

/** The parts of a Messages body and of a count_tokens body alike, in the hub's form. */
const hubCommon = (request: AnthropicCountRequest): Record<string, unknown> => {
  const out: Record<string, unknown> = {
    model: request.model,
    messages: hubMessagesOf(request.system, request.messages),
  };
  const tools = hubTools(request.tools ?? []);
  if (tools.length > 0) {
    out['tools'] = tools;
    const choice = request.tool_choice;
    if (choice) out['tool_choice'] = hubToolChoice(choice);
    if (choice && choice.type !== 'none' && choice.disable_parallel_tool_use === true)
      out['parallel_tool_calls'] = false;
  }
  const effort = reasoningEffort(request);
  if (effort) out['reasoning_effort'] = effort;
  const format = request.output_config?.format ?? request.output_format;
  if (format)
    out['response_format'] = {
      type: 'json_schema',
      json_schema: { name: 'output', schema: format.schema, strict: true },
    };
  return out;
};

/**
 * Reads a Messages API body (`POST /v1/messages`) into the hub's form, an OpenAI chat completions
 * body: system → a system message; text, image (base64 → a data URL, url → the URL) and document
 * (base64 PDF → a `file` part, plain text → text) blocks → content parts; tool_use → tool_calls;
 * tool_result → tool messages (their images follow in a user message); thinking blocks dropped;
 * custom tools → function tools; tool_choice, stop_sequences → stop, metadata.user_id → user,
 * thinking → reasoning_effort, output_config.format → response_format. A stream asks for usage.
 */
export const anthropicToHub = (body: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const request = read(anthropicMessagesRequest, body);
  const out = hubCommon(request);
  out['max_tokens'] = request.max_tokens;
  if (request.stream === true) {
    out['stream'] = true;
    out['stream_options'] = { include_usage: true };
  }
  if (typeof request.temperature === 'number') out['temperature'] = request.temperature;
  if (typeof request.top_p === 'number') out['top_p'] = request.top_p;
  if (typeof request.top_k === 'number') out['top_k'] = request.top_k;
  const stops = (request.stop_sequences ?? []).filter((stop) => stop !== '');
  if (stops.length > 0) out['stop'] = stops;
  if (request.metadata?.user_id) out['user'] = request.metadata.user_id;
  return out;
};

/**
 * Reads a count_tokens body (`POST /v1/messages/count_tokens`: a Messages body without max_tokens)
 * into a hub chat body whose messages and tools are what to count.
 */
export const readAnthropicCountRequest = (body: Readonly<Record<string, unknown>>): Record<string, unknown> =>
  hubCommon(read(anthropicCountRequest, body));

/** count_tokens' answer. */
export const anthropicCountAnswer = (inputTokens: number): { input_tokens: number } => ({
  input_tokens: inputTokens,
});
