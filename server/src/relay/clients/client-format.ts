import type { SseEvent, UpstreamErrorInfo } from '../providers/adaptor.js';

/**
 * The client formats the relay answers in. `openai` is the hub: every other format is read into an
 * OpenAI chat completions body, relayed like one, and its answer (an OpenAI `chat.completion`, or a
 * stream of `chat.completion.chunk`s) written back in the client's format. N client translators and M
 * provider translators, not N×M. When the client's format is the channel's own, the request does not
 * go through the hub at all (the provider's `native` hook: the body passes through untouched).
 */
export type ClientFormatName = 'openai' | 'anthropic' | 'responses' | 'gemini';

/** What the route tells a format besides the body (Gemini names the model and the streaming in the path). */
export interface ClientRoute {
  /** The model named in the path, when the format puts it there. */
  readonly model?: string | undefined;
  /** True when the path asks for a stream (Gemini's `:streamGenerateContent`). */
  readonly stream?: boolean | undefined;
}

/** What an answer in the client's format needs besides the hub's answer. */
export interface ClientContext {
  /** The model the client asked for: answers name it, as the providers echo the request's model. */
  readonly model: string;
  readonly requestId: string;
  /** The client's request body, as parsed JSON (what an answer echoes: instructions, tools, …). */
  readonly request: Readonly<Record<string, unknown>>;
  /** Seconds since the epoch, for the answers' `created` fields. */
  readonly created: number;
}

/**
 * One stream in the client's format. It is fed the hub's `chat.completion.chunk` objects in order,
 * including the last one that carries only `usage` (`choices: []`), then `end()` once the hub's
 * stream ended (`[DONE]`), or `error()` instead when the provider reported an error mid-stream. Each
 * returns the text to send (complete server-sent events, or '' when nothing is due yet).
 */
export interface ClientStreamWriter {
  chunk(chunk: Readonly<Record<string, unknown>>): string;
  end(): string;
  error(error: UpstreamErrorInfo): string;
}

/**
 * The end of a stream relayed in the client's own format (a native channel's, byte for byte) that
 * broke after it opened, when the format's error event must carry what the stream said before it:
 * fed every event as it passes, asked once for the closing text.
 */
export interface NativeBreakWriter {
  readonly observe: (event: SseEvent) => void;
  readonly failed: (error: UpstreamErrorInfo) => string;
}

/** An error as the relay has it (OpenAI's vocabulary), for a format to say in its own shape. */
export interface ClientErrorInput {
  readonly status: number;
  readonly message: string;
  /** OpenAI's error type: invalid_request_error, one_api_error, upstream_error, … */
  readonly type: string;
  readonly code: string;
}

/** A client format: its reader into the hub, its answer, its stream writer and its errors. Pure: no I/O. */
export interface ClientFormat {
  readonly name: ClientFormatName;
  /**
   * Reads the client's body into the hub form: an OpenAI chat completions body (`model`, `messages`,
   * `stream`, tools, …). A body the format does not accept, or a feature the hub cannot express
   * (that would change the answer if dropped), throws a 400 AppError (`relayError(400, …,
   * 'invalid_request_error')`) whose message names the field.
   */
  toHub(body: Readonly<Record<string, unknown>>, route: ClientRoute): Record<string, unknown>;
  /** The hub's answer, an OpenAI `chat.completion` object, as the client's format answers it. */
  fromHub(completion: Readonly<Record<string, unknown>>, context: ClientContext): unknown;
  /** A fresh writer for one stream. */
  streamWriter(context: ClientContext): ClientStreamWriter;
  /** An error as the format's own error body (the status stays the relay's). */
  errorBody(error: ClientErrorInput): unknown;
  /** A fresh writer of a native stream's break (absent: the format's error event says the error alone). */
  nativeBreak?(): NativeBreakWriter;
}
