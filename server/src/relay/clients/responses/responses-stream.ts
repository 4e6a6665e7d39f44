import type { UpstreamErrorInfo } from '../../providers/adaptor.js';
import type { ClientContext, ClientStreamWriter } from '../client-format.js';
import { readNumber, readRecord, readString, type JsonRecord } from './read-record.js';
import {
  argumentsText,
  createIds,
  customCallItem,
  echoOf,
  functionCallItem,
  messageItem,
  outcomeOf,
  reasoningItem,
  responseObject,
  usageOf,
  type ItemStatus,
  type Outcome,
  type ResponsesUsage,
} from './responses-response.js';
import { failedEvents, responseError } from './responses-failure.js';
import { customInputOf, toolKindsOf, type ToolKind } from './responses-tools.js';

/**
 * The hub's `chat.completion.chunk`s as the Responses API's server-sent events, in OpenAI's order:
 * `response.created`, `response.in_progress`, then per output item `output_item.added`, its deltas
 * and `output_item.done`, and last `response.completed` (or `response.incomplete`) with the whole
 * response and its usage. Reasoning (`reasoning_content` or `reasoning`) is a reasoning item's
 * summary; text is a message item; each tool call is a function call item (or a custom tool call,
 * whose input is sent whole when the call ends, since it sits inside the hub's JSON arguments).
 * A message or reasoning item ends when another kind of output starts; tool calls stay open until
 * the finish reason (upstreams may interleave them). Plain reads, no zod: this runs per chunk.
 */
interface TextItem {
  readonly kind: 'message' | 'reasoning';
  readonly id: string;
  readonly index: number;
  text: string;
}

interface CallItem {
  readonly callId: string;
  name: string;
  args: string;
  /** Set once the call is announced (it needs its name first). */
  opened?: { readonly id: string; readonly index: number; readonly kind: ToolKind | undefined };
}

/** The chunk's choice 0 (the hub answers one choice; `n` above 1 is not a Responses API notion). */
const firstChoice = (choices: readonly unknown[]): JsonRecord | undefined => {
  for (const value of choices) {
    const choice = readRecord(value);
    if (choice && (readNumber(choice['index']) ?? 0) === 0) return choice;
  }
  return undefined;
};

export const createResponsesStreamWriter = (context: ClientContext): ClientStreamWriter => {
  const ids = createIds();
  const echo = echoOf(context.request);
  const kinds = toolKindsOf(context.request);
  const output: unknown[] = [];
  const calls = new Map<number, CallItem>();
  let sequence = 0;
  let out = '';
  let started = false;
  let finished = false;
  let ended = false;
  let outcome: Outcome = outcomeOf(undefined);
  let usage: ResponsesUsage | null = null;
  let open: TextItem | undefined;

  const emit = (type: string, fields: Record<string, unknown>): void => {
    out += `event: ${type}\ndata: ${JSON.stringify({ type, ...fields, sequence_number: sequence++ })}\n\n`;
  };
  const itemStatus = (): ItemStatus => (outcome.status === 'completed' ? 'completed' : 'incomplete');
  const snapshot = (
    status: 'in_progress' | 'completed' | 'incomplete' | 'failed',
    error?: UpstreamErrorInfo,
    items: readonly unknown[] = output,
  ) =>
    responseObject(ids.response, context, echo, {
      status,
      output: items.filter((item) => item !== undefined),
      usage,
      incomplete_details: status === 'incomplete' ? outcome.incomplete_details : null,
      error: error ? responseError(error) : null,
    });

  /** The output as delivered when the stream broke: the items still open, incomplete, with what came. */
  const delivered = (): unknown[] => {
    const items = [...output];
    if (open)
      items[open.index] =
        open.kind === 'message'
          ? messageItem(open.id, open.text, 'incomplete')
          : reasoningItem(open.id, open.text);
    for (const call of calls.values()) {
      const opened = call.opened;
      if (!opened || items[opened.index] !== undefined) continue;
      items[opened.index] = opened.kind?.custom
        ? customCallItem(opened.id, call.callId, opened.kind, customInputOf(call.args), 'incomplete')
        : functionCallItem(opened.id, call.callId, call.name, opened.kind, call.args, 'incomplete');
    }
    return items;
  };

  const start = (): void => {
    if (started) return;
    started = true;
    emit('response.created', { response: snapshot('in_progress') });
    emit('response.in_progress', { response: snapshot('in_progress') });
  };

  const closeText = (): void => {
    if (!open) return;
    const { id, index, text } = open;
    const at = { item_id: id, output_index: index };
    if (open.kind === 'message') {
      const part = { type: 'output_text', text, annotations: [] };
      emit('response.output_text.done', { ...at, content_index: 0, text, logprobs: [] });
      emit('response.content_part.done', { ...at, content_index: 0, part });
      output[index] = messageItem(id, text, itemStatus());
    } else {
      const part = { type: 'summary_text', text };
      emit('response.reasoning_summary_text.done', { ...at, summary_index: 0, text });
      emit('response.reasoning_summary_part.done', { ...at, summary_index: 0, part });
      output[index] = reasoningItem(id, text);
    }
    emit('response.output_item.done', { output_index: index, item: output[index] });
    open = undefined;
  };

  const textDelta = (kind: TextItem['kind'], delta: string): void => {
    let item = open;
    if (item?.kind !== kind) {
      closeText();
      const prefix = kind === 'message' ? 'msg' : 'rs';
      item = { kind, id: ids.next(prefix), index: output.length, text: '' };
      output.push(undefined);
      open = item;
      const at = { item_id: item.id, output_index: item.index };
      if (kind === 'message') {
        const added = { id: item.id, type: 'message', status: 'in_progress', role: 'assistant', content: [] };
        const part = { type: 'output_text', text: '', annotations: [] };
        emit('response.output_item.added', { output_index: item.index, item: added });
        emit('response.content_part.added', { ...at, content_index: 0, part });
      } else {
        const added = { id: item.id, type: 'reasoning', summary: [] };
        const part = { type: 'summary_text', text: '' };
        emit('response.output_item.added', { output_index: item.index, item: added });
        emit('response.reasoning_summary_part.added', { ...at, summary_index: 0, part });
      }
    }
    item.text += delta;
    const at = { item_id: item.id, output_index: item.index };
    if (kind === 'message')
      emit('response.output_text.delta', { ...at, content_index: 0, delta, logprobs: [] });
    else emit('response.reasoning_summary_text.delta', { ...at, summary_index: 0, delta });
  };

  /** Announces a call once its name is known, with the arguments gathered so far. */
  const openCall = (call: CallItem): void => {
    closeText();
    const kind = kinds.get(call.name);
    const opened = { id: ids.next(kind?.custom ? 'ctc' : 'fc'), index: output.length, kind };
    output.push(undefined);
    call.opened = opened;
    const item = kind?.custom
      ? customCallItem(opened.id, call.callId, kind, '', 'in_progress')
      : functionCallItem(opened.id, call.callId, call.name, kind, '', 'in_progress');
    emit('response.output_item.added', { output_index: opened.index, item });
    if (call.args !== '' && !kind?.custom)
      emit('response.function_call_arguments.delta', {
        item_id: opened.id,
        output_index: opened.index,
        delta: call.args,
      });
  };

  const callDelta = (value: JsonRecord): void => {
    const index = readNumber(value['index']) ?? 0;
    const fn = readRecord(value['function']);
    let call = calls.get(index);
    if (!call) {
      call = { callId: readString(value['id']) || ids.next('call'), name: '', args: '' };
      calls.set(index, call);
    }
    const name = readString(fn?.['name']);
    if (name && !call.opened) call.name += name;
    const piece = argumentsText(fn?.['arguments']);
    call.args += piece;
    if (!call.opened) {
      if (call.name !== '') openCall(call);
      return;
    }
    if (piece !== '' && !call.opened.kind?.custom)
      emit('response.function_call_arguments.delta', {
        item_id: call.opened.id,
        output_index: call.opened.index,
        delta: piece,
      });
  };

  const closeCall = (call: CallItem): void => {
    if (!call.opened) openCall(call);
    const opened = call.opened as NonNullable<CallItem['opened']>;
    const at = { item_id: opened.id, output_index: opened.index };
    if (opened.kind?.custom) {
      const input = customInputOf(call.args);
      if (input !== '') emit('response.custom_tool_call_input.delta', { ...at, delta: input });
      emit('response.custom_tool_call_input.done', { ...at, input });
      output[opened.index] = customCallItem(opened.id, call.callId, opened.kind, input, itemStatus());
    } else {
      const name = opened.kind?.name ?? call.name;
      emit('response.function_call_arguments.done', { ...at, name, arguments: call.args });
      output[opened.index] = functionCallItem(
        opened.id,
        call.callId,
        call.name,
        opened.kind,
        call.args,
        itemStatus(),
      );
    }
    emit('response.output_item.done', { output_index: opened.index, item: output[opened.index] });
  };

  const finish = (finishReason: string | undefined): void => {
    if (finished) return;
    finished = true;
    if (finishReason !== undefined) outcome = outcomeOf(finishReason);
    closeText();
    const ordered = [...calls.entries()].sort(([left], [right]) => left - right);
    for (const [, call] of ordered) closeCall(call);
  };

  const take = (): string => {
    const text = out;
    out = '';
    return text;
  };

  return {
    chunk(chunk) {
      if (ended) return '';
      start();
      const chunkUsage = usageOf(chunk['usage']);
      if (chunkUsage) usage = chunkUsage;
      const choices = chunk['choices'];
      const choice = Array.isArray(choices) ? firstChoice(choices as unknown[]) : undefined;
      if (choice && !finished) {
        const delta = readRecord(choice['delta']);
        const reasoning = readString(delta?.['reasoning_content']) ?? readString(delta?.['reasoning']);
        if (reasoning) textDelta('reasoning', reasoning);
        const content = readString(delta?.['content']);
        if (content) textDelta('message', content);
        const toolCalls = delta?.['tool_calls'];
        if (Array.isArray(toolCalls))
          for (const value of toolCalls) {
            const record = readRecord(value);
            if (record) callDelta(record);
          }
        const finishReason = readString(choice['finish_reason']);
        if (finishReason) finish(finishReason);
      }
      return take();
    },
    end() {
      if (ended) return '';
      ended = true;
      start();
      finish(undefined);
      const status = outcome.status;
      emit(status === 'completed' ? 'response.completed' : 'response.incomplete', {
        response: snapshot(status),
      });
      return take();
    },
    error(error) {
      if (ended) return '';
      ended = true;
      start();
      out += failedEvents(error, snapshot('failed', error, delivered()), sequence);
      sequence += 2;
      return take();
    },
  };
};
