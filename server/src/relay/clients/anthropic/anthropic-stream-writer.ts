import type { UpstreamErrorInfo } from '../../providers/adaptor.js';
import type { ClientContext, ClientStreamWriter } from '../client-format.js';
import { anthropicStreamErrorType } from './anthropic-error-body.js';
import { anthropicMessageId, anthropicStopReason, anthropicUsageOf } from './anthropic-from-hub.js';

type Json = Record<string, unknown>;

/** The kind of the content block open now ('' when none is). */
type BlockKind = '' | 'text' | 'thinking' | 'tool';

const event = (name: string, data: string): string => `event: ${name}\ndata: ${data}\n\n`;

const PING = event('ping', '{"type":"ping"}');

const object = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null ? (value as Json) : undefined;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The choice a chunk carries for the first (and only) answer: index 0, or no index at all. */
const firstChoice = (choices: unknown): Json | undefined => {
  if (!Array.isArray(choices)) return undefined;
  for (const item of choices as unknown[]) {
    const choice = object(item);
    if (choice && (choice['index'] === undefined || choice['index'] === 0)) return choice;
  }
  return undefined;
};

/**
 * Hub chunks (`chat.completion.chunk`) as Anthropic's stream: message_start (and a ping), then one
 * content block per run of reasoning (thinking), text or one tool call, each opened, fed and
 * stopped in order, then at the end message_delta (stop_reason, the usage) and message_stop.
 *
 * Tool calls are expected one after the other, as OpenAI-compatible upstreams send them: a call
 * begins with a fragment whose `index`, or whose `id` at the same index (an upstream that numbers
 * every call 0), was not seen before. A late fragment of a call whose block was already stopped
 * cannot be sent in Anthropic's format and is dropped. Thinking blocks end with an empty
 * signature: the hub has none, and the client gives them back to no one (the reader drops them).
 *
 * Per chunk, the work is a few property reads and string templates: no zod, no per-chunk objects
 * beyond the text it answers.
 */
export class AnthropicStreamWriter implements ClientStreamWriter {
  private started = false;
  private done = false;
  private id = '';
  private kind: BlockKind = '';
  /** Content blocks started so far; the open one's index is blocks - 1. */
  private blocks = 0;
  private tools = 0;
  /** The hub's index and id of the last tool call begun. */
  private toolIndex = -1;
  private toolId = '';
  /** The hub's index and id of every call begun, in order. */
  private readonly callIndexes: number[] = [];
  private readonly callIds: string[] = [];
  private finish: unknown = null;
  private usage: unknown = undefined;

  constructor(private readonly context: ClientContext) {}

  chunk(chunk: Readonly<Json>): string {
    if (this.done) return '';
    const usage = object(chunk['usage']);
    if (usage) this.usage = usage;
    let out = this.started ? '' : this.start(chunk);
    const choice = firstChoice(chunk['choices']);
    if (choice === undefined) return out;
    const delta = object(choice['delta']);
    if (delta) {
      const thinking = text(delta['reasoning_content']) || text(delta['reasoning']);
      if (thinking !== '') out += this.open('thinking') + this.thinkingDelta(thinking);
      const content = text(delta['content']);
      if (content !== '') out += this.open('text') + this.textDelta(content);
      const calls = delta['tool_calls'];
      if (Array.isArray(calls)) for (const call of calls as unknown[]) out += this.toolDelta(object(call));
    }
    const finish = choice['finish_reason'];
    if (typeof finish === 'string' && finish !== '') this.finish = finish;
    return out;
  }

  end(): string {
    if (this.done) return '';
    this.done = true;
    let out = this.started ? '' : this.start(undefined);
    out += this.close();
    const usage = anthropicUsageOf(this.usage);
    const delta = {
      type: 'message_delta',
      delta: { stop_reason: anthropicStopReason(this.finish, this.tools > 0), stop_sequence: null },
      usage: {
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        cache_read_input_tokens: usage.cache_read_input_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens,
      },
    };
    return (
      out + event('message_delta', JSON.stringify(delta)) + event('message_stop', '{"type":"message_stop"}')
    );
  }

  error(error: UpstreamErrorInfo): string {
    if (this.done) return '';
    this.done = true;
    const body = { type: 'error', error: { type: anthropicStreamErrorType(error), message: error.message } };
    return event('error', JSON.stringify(body));
  }

  private start(chunk: Readonly<Json> | undefined): string {
    this.started = true;
    this.id = anthropicMessageId(chunk?.['id'], this.context.requestId);
    const usage = anthropicUsageOf(this.usage);
    const message = {
      type: 'message_start',
      message: {
        id: this.id,
        type: 'message',
        role: 'assistant',
        model: this.context.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: usage.input_tokens,
          cache_creation_input_tokens: usage.cache_creation_input_tokens,
          cache_read_input_tokens: usage.cache_read_input_tokens,
          output_tokens: 0,
        },
      },
    };
    return event('message_start', JSON.stringify(message)) + PING;
  }

  /** Stops the open block (a thinking block gets its signature first). */
  private close(): string {
    if (this.kind === '') return '';
    const index = this.blocks - 1;
    const signature =
      this.kind === 'thinking'
        ? event(
            'content_block_delta',
            `{"type":"content_block_delta","index":${index},"delta":{"type":"signature_delta","signature":""}}`,
          )
        : '';
    this.kind = '';
    return signature + event('content_block_stop', `{"type":"content_block_stop","index":${index}}`);
  }

  /** Opens a text or thinking block unless one of that kind is open. */
  private open(kind: 'text' | 'thinking'): string {
    if (this.kind === kind) return '';
    const out = this.close();
    this.kind = kind;
    const block =
      kind === 'text' ? '{"type":"text","text":""}' : '{"type":"thinking","thinking":"","signature":""}';
    return out + this.startBlock(block);
  }

  private startBlock(block: string): string {
    const index = this.blocks;
    this.blocks += 1;
    return event(
      'content_block_start',
      `{"type":"content_block_start","index":${index},"content_block":${block}}`,
    );
  }

  private blockDelta(delta: string): string {
    return event(
      'content_block_delta',
      `{"type":"content_block_delta","index":${this.blocks - 1},"delta":${delta}}`,
    );
  }

  private textDelta(value: string): string {
    return this.blockDelta(`{"type":"text_delta","text":${JSON.stringify(value)}}`);
  }

  private thinkingDelta(value: string): string {
    return this.blockDelta(`{"type":"thinking_delta","thinking":${JSON.stringify(value)}}`);
  }

  /** Whether a fragment (its index, its id or '') belongs to a call begun before the open one. */
  private isEarlierCall(index: number, id: string): boolean {
    for (let call = 0; call < this.tools - 1; call += 1)
      if (this.callIndexes[call] === index && (id === '' || this.callIds[call] === id)) return true;
    return false;
  }

  private toolDelta(call: Json | undefined): string {
    if (call === undefined) return '';
    const id = text(call['id']);
    const fn = object(call['function']);
    const args = text(fn?.['arguments']);
    const index = typeof call['index'] === 'number' ? call['index'] : Math.max(this.toolIndex, 0);
    if (this.tools > 0 && index === this.toolIndex && (id === '' || id === this.toolId)) {
      // The last call begun goes on, unless its block was stopped (text came in between).
      if (this.kind !== 'tool' || args === '') return '';
      return this.blockDelta(`{"type":"input_json_delta","partial_json":${JSON.stringify(args)}}`);
    }
    // A late fragment of a call whose block was stopped has nowhere to go in Anthropic's format.
    if (this.isEarlierCall(index, id)) return '';
    let out = this.close();
    this.kind = 'tool';
    this.toolIndex = index;
    this.toolId = id;
    this.callIndexes.push(index);
    this.callIds.push(id);
    const toolUse = {
      type: 'tool_use',
      id: id || `toolu_${this.id.slice(4)}_${this.tools}`,
      name: text(fn?.['name']),
      input: {},
    };
    this.tools += 1;
    out += this.startBlock(JSON.stringify(toolUse));
    if (args !== '')
      out += this.blockDelta(`{"type":"input_json_delta","partial_json":${JSON.stringify(args)}}`);
    return out;
  }
}

/** A fresh writer for one stream. */
export const anthropicStreamWriter = (context: ClientContext): ClientStreamWriter =>
  new AnthropicStreamWriter(context);
