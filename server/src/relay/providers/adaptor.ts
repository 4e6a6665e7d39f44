/**
 * The adaptor contract: a pure translator between OpenAI's wire format and a provider's. Adaptors
 * never see Hono, the database or the network; the pipeline does the I/O once.
 */
export type RelayMode =
  | 'chat'
  | 'completions'
  | 'embeddings'
  | 'moderations'
  | 'images'
  | 'speech'
  | 'transcription'
  | 'translation';

/** The channel as an adaptor sees it. */
export interface ChannelMeta {
  readonly id: number;
  readonly type: number;
  readonly key: string;
  /** The channel's base_url, else the type's default; no trailing slash. */
  readonly baseUrl: string;
  /** The channel's config JSON (region, api_version, user_id, …), legacy `other` folded in. */
  readonly config: Readonly<Record<string, string>>;
}

/** Process settings some adaptors read: one-api's GEMINI_VERSION and GEMINI_SAFETY_SETTING. */
export interface AdaptorSettings {
  /** The Gemini API version of channels that set none ('' = v1beta). */
  readonly geminiVersion: string;
  /** The threshold of every Gemini safety category. */
  readonly geminiSafety: string;
}

export interface RelayRequestMeta {
  readonly mode: RelayMode;
  /** The client's path, e.g. /v1/chat/completions. */
  readonly path: string;
  /** The model sent upstream (after the channel's model mapping). */
  readonly model: string;
  readonly stream: boolean;
  readonly channel: ChannelMeta;
  /** The client's request body (after the channel's system prompt), for what a response needs of it. */
  readonly body: Readonly<Record<string, unknown>>;
  /** Request headers of the client that adaptors may honour (lower-case names). */
  readonly clientHeaders: Readonly<Record<string, string>>;
  /**
   * The client's JSON bytes, given when an OpenAI-format body may go upstream as it came (no model
   * mapping, no system prompt): the OpenAI adaptors send them instead of serialising `body` again.
   */
  readonly raw?: Uint8Array | undefined;
  readonly settings?: AdaptorSettings | undefined;
  /** The access token the adaptor's `token` source gave for this channel (fetched and cached by the relay). */
  readonly token?: string | undefined;
}

export interface UpstreamRequest {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string | Uint8Array;
  /** POST when absent; a GET (a task's poll) goes without its body. */
  readonly method?: 'GET' | 'POST';
}

/**
 * Of the prompt tokens, those the provider read from its prompt cache (OpenAI's `cached_tokens`) and
 * those it wrote to it (`cache_creation_tokens`, Sluice's name for Anthropic's cache writes). Both
 * are already counted in `prompt_tokens`; they are billed at their own ratios.
 */
export interface PromptTokensDetails {
  cached_tokens?: number;
  cache_creation_tokens?: number;
}

/**
 * A usage in OpenAI's terms: `prompt_tokens` is all the input (cached or not, as one-api logs it),
 * `completion_tokens` all the output (reasoning included). `prompt_tokens_details` is present only
 * when the provider read from or wrote to its prompt cache.
 */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: PromptTokensDetails;
}

/** One server-sent event as read from the upstream. */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
}

export interface StreamStep {
  /** OpenAI `chat.completion.chunk` objects to send to the client. */
  readonly chunks: readonly unknown[];
  readonly usage?: Usage;
  /** Text generated in this step (for local counting when the provider gives no usage). */
  readonly text?: string;
  readonly done?: boolean;
  /** The provider reported an error mid-stream: the client gets it as OpenAI's error event. */
  readonly error?: UpstreamErrorInfo;
}

export interface ParsedResponse {
  /** The OpenAI-shaped body to answer. */
  readonly body: unknown;
  readonly usage?: Usage;
  /** Text generated (for local counting when usage is missing). */
  readonly text?: string;
}

export interface UpstreamErrorInfo {
  readonly message: string;
  readonly type: string;
  readonly code: string;
  /** OpenAI's `param`, passed on as it came; other formats have none. */
  readonly param?: string;
}

/** The client formats a provider may speak itself (relay/clients/ names them too). */
export type NativeFormatName = 'anthropic' | 'responses' | 'gemini';

/** What one event of a native stream says, as its tap reads it. */
export interface NativeStreamStep {
  /** Before the stream opened: 'open' once an event commits the answer, 'wait' past a ping. */
  readonly opening: 'open' | 'wait' | 'refuse';
  /** The stream's usage so far, when this event carries it (each replaces the last). */
  readonly usage?: Usage;
  /**
   * The usage is the answer's last word (Anthropic's message_delta, Gemini's finishing event, the
   * Responses API's completed response): a stream cut before it is billed with its output counted.
   */
  readonly final?: boolean;
  /** Text generated in this event (for local counting when the final usage never comes). */
  readonly text?: string;
  /** The event's data holds generated text: read (by `eventText`) only if the final usage never comes. */
  readonly textLater?: boolean;
  /** The provider reported an error in this event. */
  readonly error?: UpstreamErrorInfo;
}

/**
 * A client format the provider speaks itself: the client's body goes upstream as it came but for
 * the model, and the answer comes back as it came; the relay only reads the usage it carries.
 */
export interface NativeFormat {
  readonly format: NativeFormatName;
  /**
   * The models the provider speaks this format for (all when absent): Vertex AI speaks Anthropic's
   * for Claude only, Gemini's for the rest; a model it does not serve goes through the hub.
   */
  serves?(model: string): boolean;
  /** The upstream request for the client's body (`meta.model`: the model the channel maps to). */
  buildRequest(
    body: Readonly<Record<string, unknown>>,
    raw: Uint8Array,
    meta: RelayRequestMeta,
  ): UpstreamRequest;
  /** The usage of a JSON answer, and its text for local counting. */
  readAnswer(body: unknown): { usage?: Usage; text: string };
  /** A fresh reader for one stream's events. */
  streamTap(): (event: SseEvent) => NativeStreamStep;
  /** The text generated in an event the tap marked `textLater`. */
  eventText(data: string): string;
  /**
   * A fresh decoder of one stream that comes in another framing than the client's (Bedrock's binary
   * event stream of Anthropic events): the client's events, name and data as its own stream carries
   * them, which the relay sends as server-sent events (read by the tap like any). An error the
   * decoder words itself passes its text through `scrub` first. Absent for a stream already in the
   * client's framing: its bytes go to the client as they came.
   */
  decodeStream?(scrub: (text: string) => string): StreamDecoder;
}

/** A fresh access token, as a token endpoint answered it. */
export interface IssuedToken {
  readonly token: string;
  /** Seconds it is valid for from now. */
  readonly expiresInSeconds: number;
}

/**
 * A provider whose calls carry an access token fetched first (an OAuth client-credentials grant, a
 * service account's JWT grant). The relay does the I/O (upstream/token-cache.ts): one fetch per
 * channel's credentials at a time, cached until shortly before it expires; `buildRequest` reads it
 * from `meta.token`.
 */
export interface TokenSource {
  /** False for a channel whose key is sent as it is (no token to fetch: `meta.token` is ''); default true. */
  applies?(channel: ChannelMeta): boolean;
  /** What identifies the credentials (tokens are cached by it, per process); never the secret itself. */
  cacheKey(channel: ChannelMeta): string;
  /** The token request (may sign something first). */
  request(channel: ChannelMeta): UpstreamRequest | Promise<UpstreamRequest>;
  /** The token from the endpoint's answer, or the provider's error. */
  read(status: number, body: unknown): IssuedToken | UpstreamErrorInfo;
}

/** Reads a stream that is not server-sent events (AWS's binary event stream, …) as events. */
export interface StreamDecoder {
  /** The complete events in this chunk (a frame may be split anywhere). */
  feed(chunk: Buffer): SseEvent[];
  /** The end of the stream: what is left (a partial frame is dropped or thrown as garbage). */
  end(): SseEvent[];
}

/**
 * What one answer of an asynchronous task says comes next (`AsyncTask.read`): ask again after a
 * pause, fetch the files the finished task points at (`then` reads them, each undefined when it
 * could not be fetched), answer, or fail with the provider's error at a status.
 */
export type TaskStep =
  | { readonly kind: 'poll'; readonly request: UpstreamRequest; readonly afterMs: number }
  | {
      readonly kind: 'fetch';
      readonly urls: readonly string[];
      readonly then: (files: readonly (Uint8Array | undefined)[]) => TaskStep;
    }
  | { readonly kind: 'answer'; readonly answer: ParsedResponse }
  | { readonly kind: 'failed'; readonly status: number; readonly error: UpstreamErrorInfo };

/**
 * A provider that answers a request with a task to poll until it finishes (DashScope's
 * text-to-image). The relay sends `buildRequest`'s request, hands each answer to `read` and does
 * what it says: the pauses and the calls (pipeline/task-polling.ts), within the upstream timeout
 * (RELAY_TIMEOUT), none once the client left. The adaptor only translates.
 */
export interface AsyncTask {
  /** Whether this request is answered by a task (DashScope: images only). */
  applies(meta: RelayRequestMeta): boolean;
  /** One answer of the task: the creation's (`polls` 0), then each poll's. */
  read(body: unknown, meta: RelayRequestMeta, polls: number): TaskStep;
}

/** What every adaptor does: build the upstream request, read its answer and its errors. */
interface AdaptorBase {
  readonly modes: readonly RelayMode[];
  buildRequest(body: Record<string, unknown>, meta: RelayRequestMeta): UpstreamRequest;
  parseResponse(body: unknown, meta: RelayRequestMeta): ParsedResponse;
  /** Reads a provider error body; undefined when the body is not one of the provider's errors. */
  parseError(body: unknown): UpstreamErrorInfo | undefined;
  /** The client formats this provider speaks itself (passed through untouched). */
  readonly native?: readonly NativeFormat[];
  /**
   * A non-stream request the provider answers only as a stream (Coze's v3 chat): the whole stream's
   * text, read into one answer. Called when the answer's body is not JSON.
   */
  gatherStream?(text: string, meta: RelayRequestMeta): ParsedResponse;
  /** Where the access token of each call comes from, for providers that need one fetched. */
  readonly token?: TokenSource;
  /** A request the provider answers with a task to poll (its answer read by `task`, not `parseResponse`). */
  readonly task?: AsyncTask;
  /**
   * Signs the built request (a signature over its URL, headers and body, e.g. AWS SigV4, whose
   * library hashes asynchronously): the relay and the channel test call it after `buildRequest`.
   */
  sign?(request: UpstreamRequest, meta: RelayRequestMeta): Promise<UpstreamRequest>;
}

/**
 * A provider that speaks OpenAI's format: the pipeline may send the client's bytes upstream and
 * answer the upstream's bytes as they came; its streams go through the byte-level pass-through
 * (relay/stream/), which reads the usage and drops what the client did not ask for.
 */
export interface PassThroughAdaptor extends AdaptorBase {
  readonly kind: 'pass-through';
}

/** One stream's translator: each upstream event in, OpenAI chunks out; its state lives in the closure. */
export type StreamTranslator = (event: SseEvent) => StreamStep;

/**
 * A provider with a format of its own: requests, answers and every stream event are translated to
 * and from OpenAI's format.
 */
export interface TranslatingAdaptor extends AdaptorBase {
  readonly kind: 'translating';
  /** A fresh translator for one stream. */
  translateStream(meta: RelayRequestMeta): StreamTranslator;
  /**
   * A fresh decoder for one stream whose framing is not server-sent events (the default); undefined
   * for a stream that is. A decoded stream may come as JSON (one body, emitted as one chunk).
   */
  decodeStream?(meta: RelayRequestMeta): StreamDecoder | undefined;
}

/** The adaptor contract: a pure translator, one of two declared kinds. */
export type Adaptor = PassThroughAdaptor | TranslatingAdaptor;
