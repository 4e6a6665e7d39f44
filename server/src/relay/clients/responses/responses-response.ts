import { randomUUID } from 'node:crypto';
import type { ClientContext } from '../client-format.js';
import { readNumber, readRecord, readString, type JsonRecord } from './read-record.js';
import { customInputOf, toolKindsOf, type ToolKind } from './responses-tools.js';

/**
 * The hub's answer (an OpenAI `chat.completion`) as a Responses API `response` object, and the
 * pieces the stream writer shares with it: ids, output items, usage, status and the envelope that
 * echoes the request.
 */
export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

/** Ids for one response: `resp_<32 hex>`, and its items `<prefix>_<same hex><counter>`. */
export const createIds = () => {
  const base = randomUUID().replaceAll('-', '');
  let counter = 0;
  return {
    response: `resp_${base}`,
    next: (prefix: string): string => `${prefix}_${base}${(counter++).toString(16).padStart(4, '0')}`,
  };
};

export type Ids = ReturnType<typeof createIds>;

export const reasoningItem = (id: string, text: string) => ({
  id,
  type: 'reasoning',
  summary: text === '' ? [] : [{ type: 'summary_text', text }],
});

export const messageItem = (id: string, text: string, status: ItemStatus, refusal?: string) => ({
  id,
  type: 'message',
  status,
  role: 'assistant',
  content: [
    ...(text !== '' || refusal === undefined ? [{ type: 'output_text', text, annotations: [] }] : []),
    ...(refusal !== undefined ? [{ type: 'refusal', refusal }] : []),
  ],
});

export const functionCallItem = (
  id: string,
  callId: string,
  hubName: string,
  kind: ToolKind | undefined,
  args: string,
  status: ItemStatus,
) => ({
  id,
  type: 'function_call',
  status,
  arguments: args,
  call_id: callId,
  name: kind?.name ?? hubName,
  ...(kind?.namespace !== undefined ? { namespace: kind.namespace } : {}),
});

export const customCallItem = (
  id: string,
  callId: string,
  kind: ToolKind,
  input: string,
  status: ItemStatus,
) => ({
  id,
  type: 'custom_tool_call',
  status,
  call_id: callId,
  name: kind.name,
  ...(kind.namespace !== undefined ? { namespace: kind.namespace } : {}),
  input,
});

export interface ResponsesUsage {
  readonly input_tokens: number;
  readonly input_tokens_details: { readonly cached_tokens: number };
  readonly output_tokens: number;
  readonly output_tokens_details: { readonly reasoning_tokens: number };
  readonly total_tokens: number;
}

/** The hub's usage (prompt/completion tokens and their details) in the Responses API's words. */
export const usageOf = (value: unknown): ResponsesUsage | undefined => {
  const usage = readRecord(value);
  if (!usage) return undefined;
  const input = readNumber(usage['prompt_tokens']) ?? readNumber(usage['input_tokens']) ?? 0;
  const output = readNumber(usage['completion_tokens']) ?? readNumber(usage['output_tokens']) ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: {
      cached_tokens: readNumber(readRecord(usage['prompt_tokens_details'])?.['cached_tokens']) ?? 0,
    },
    output_tokens: output,
    output_tokens_details: {
      reasoning_tokens: readNumber(readRecord(usage['completion_tokens_details'])?.['reasoning_tokens']) ?? 0,
    },
    total_tokens: readNumber(usage['total_tokens']) ?? input + output,
  };
};

export interface Outcome {
  readonly status: 'completed' | 'incomplete';
  readonly incomplete_details: { readonly reason: string } | null;
}

/** The response's status from the hub's finish reason: cut by the limit or a filter is `incomplete`. */
export const outcomeOf = (finishReason: string | undefined): Outcome => {
  if (finishReason === 'length')
    return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finishReason === 'content_filter')
    return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
};

/** What every response object echoes of the request, worked out once per answer. */
export const echoOf = (request: JsonRecord) => {
  const parallel = request['parallel_tool_calls'];
  return {
    instructions: readString(request['instructions']) ?? null,
    max_output_tokens: readNumber(request['max_output_tokens']) ?? null,
    parallel_tool_calls: typeof parallel === 'boolean' ? parallel : true,
    previous_response_id: null,
    reasoning: readRecord(request['reasoning']) ?? { effort: null, summary: null },
    store: false,
    temperature: readNumber(request['temperature']) ?? null,
    text: readRecord(request['text']) ?? { format: { type: 'text' } },
    tool_choice: request['tool_choice'] ?? 'auto',
    tools: Array.isArray(request['tools']) ? request['tools'] : [],
    top_p: readNumber(request['top_p']) ?? null,
    truncation: readString(request['truncation']) ?? 'disabled',
    ...(typeof request['user'] === 'string' ? { user: request['user'] } : {}),
    ...(typeof request['safety_identifier'] === 'string'
      ? { safety_identifier: request['safety_identifier'] }
      : {}),
    metadata: readRecord(request['metadata']) ?? {},
  };
};

export type Echo = ReturnType<typeof echoOf>;

export interface ResponseState {
  readonly status: 'in_progress' | 'completed' | 'incomplete' | 'failed';
  readonly output: readonly unknown[];
  readonly usage: ResponsesUsage | null;
  readonly incomplete_details?: { readonly reason: string } | null;
  readonly error?: { readonly code: string; readonly message: string } | null;
}

/** The `response` object: its id, status, output and usage, and the request's echo. */
export const responseObject = (id: string, context: ClientContext, echo: Echo, state: ResponseState) => {
  const { instructions, max_output_tokens, ...rest } = echo;
  return {
    id,
    object: 'response',
    created_at: context.created,
    status: state.status,
    background: false,
    error: state.error ?? null,
    incomplete_details: state.incomplete_details ?? null,
    instructions,
    max_output_tokens,
    model: context.model,
    output: state.output,
    ...rest,
    usage: state.usage,
  };
};

/** The text of a hub message's content: a string, or its text parts joined. */
const contentText = (content: unknown): string => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => readString(readRecord(part)?.['text']) ?? '').join('');
};

/** A hub tool call's arguments as text (some upstreams give an object). */
export const argumentsText = (value: unknown): string =>
  typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value);

/** The hub's `chat.completion` as a Responses API `response` object. */
export const hubToResponse = (completion: JsonRecord, context: ClientContext) => {
  const ids = createIds();
  const kinds = toolKindsOf(context.request);
  const choices = Array.isArray(completion['choices']) ? (completion['choices'] as unknown[]) : [];
  const choice = readRecord(choices.find((value) => readRecord(value)?.['index'] === 0) ?? choices[0]);
  const message = readRecord(choice?.['message']);
  const outcome = outcomeOf(readString(choice?.['finish_reason']));
  const itemStatus: ItemStatus = outcome.status;
  const output: unknown[] = [];

  const reasoning = readString(message?.['reasoning_content']) ?? readString(message?.['reasoning']);
  if (reasoning) output.push(reasoningItem(ids.next('rs'), reasoning));
  const text = contentText(message?.['content']);
  const refusal = readString(message?.['refusal']) || undefined;
  if (text !== '' || refusal !== undefined)
    output.push(messageItem(ids.next('msg'), text, itemStatus, refusal));
  const calls = Array.isArray(message?.['tool_calls']) ? (message['tool_calls'] as unknown[]) : [];
  for (const value of calls) {
    const call = readRecord(value);
    const fn = readRecord(call?.['function']);
    const hubName = readString(fn?.['name']) ?? '';
    const args = argumentsText(fn?.['arguments']);
    const callId = readString(call?.['id']) || ids.next('call');
    const kind = kinds.get(hubName);
    output.push(
      kind?.custom
        ? customCallItem(ids.next('ctc'), callId, kind, customInputOf(args), itemStatus)
        : functionCallItem(ids.next('fc'), callId, hubName, kind, args, itemStatus),
    );
  }
  return responseObject(ids.response, context, echoOf(context.request), {
    ...outcome,
    output,
    usage: usageOf(completion['usage']) ?? null,
  });
};
