import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { openAiErrorOf } from '../relay/http/openai-error.js';
import { upstreamError } from '../relay/pipeline/upstream-error.js';
import type { Adaptor, RelayMode, RelayRequestMeta, Usage } from '../relay/providers/adaptor.js';
import {
  JUNK_ERROR_BODIES,
  contentOf,
  dataOf,
  errorEvents,
  insideCharacters,
  isJson,
  junkRawBodies,
  pieceSizes,
  piecesOf,
  quotedInEveryField,
  relayEnded,
  relayPieces,
  type Recordings,
  type Relayed,
} from './adaptor-conformance-support.js';

/** Where a provider wants the channel's key: a header (its value `scheme` + key), or a URL query parameter. */
export type KeyPlacement =
  | { readonly header: string; readonly scheme?: string }
  | { readonly query: string }
  /** A key of several parts whose secret signs the request (TC3, an HMAC-signed URL): never sent. */
  | { readonly signed: (secret: string) => string };

/** What the client must get from a recorded stream, whatever its split. */
export interface StreamExpectation {
  /** The usage the stream relay reports in onFinish. */
  readonly usage: Usage | undefined;
  /** The text onFinish reports (counted locally only when no usage came). */
  readonly text: string;
  /** Every `delta.content` the client got, joined. */
  readonly content: string;
}

/** One provider's particulars, as the conformance suite needs them. */
export interface ConformanceSubject {
  readonly name: string;
  readonly adaptor: Adaptor;
  /** The channel type of the channel the requests go to. */
  readonly type: number;
  readonly model: string;
  readonly key: KeyPlacement;
  readonly recordings: Recordings;
  /** What each recorded stream (by file name) must give; checked where given. */
  readonly expected?: Readonly<Record<string, StreamExpectation>>;
  /** The provider is reached over a WebSocket: its URLs are the base URL's with ws(s):// for http(s)://. */
  readonly webSocket?: boolean;
  /**
   * The provider answers a stream request with one body (DeepL, PaLM: one chunk, then [DONE]): an
   * error cannot come mid-stream; its error body before any chunk fails the attempt instead.
   */
  readonly oneBody?: boolean;
  /**
   * A stream that is not SSE text (AWS's event stream): the mid-stream error recording with its
   * error payload rewritten by `rewrite` (SSE recordings have their `data:` line rewritten instead).
   */
  readonly midStreamErrorWith?: (key: string, baseUrl: string, rewrite: (data: unknown) => unknown) => Buffer;
  /**
   * The adaptor sends an access token (its `token` source's, in `meta.token`) where the key
   * placement says, and the channel's key nowhere.
   */
  readonly accessToken?: boolean;
  /** The channel's config (region, project, …) for a provider that reads it. */
  readonly config?: Readonly<Record<string, string>>;
}

/** A key no fixture contains by chance, long enough for `scrub` (six characters or more). */
export const CONFORMANCE_KEY = 'sk-conformance-3f9d2b7c1e8a4d6f';
/** The access token a token-source adaptor gets (`accessToken` subjects), unlike any fixture's text. */
export const CONFORMANCE_TOKEN = 'ya29.conformance-token-8e2f4a6c1b3d';
/** Loopback base URLs that no fixture contains by chance; the second one with a path. */
export const CONFORMANCE_BASE_URLS = ['http://127.0.0.42:9', 'http://127.0.0.1:9/some/prefix'] as const;
const BASE_URL = CONFORMANCE_BASE_URLS[1];

const PATHS: Readonly<Record<RelayMode, string>> = {
  chat: '/v1/chat/completions',
  completions: '/v1/completions',
  embeddings: '/v1/embeddings',
  moderations: '/v1/moderations',
  images: '/v1/images/generations',
  speech: '/v1/audio/speech',
  transcription: '/v1/audio/transcriptions',
  translation: '/v1/audio/translations',
};

/** One body every mode can read: messages for chat, input for embeddings and speech, a prompt. */
const bodyOf = (model: string, stream: boolean): Record<string, unknown> => ({
  model,
  messages: [{ role: 'user', content: 'Hello, 你好 👋' }],
  input: 'Hello, 你好 👋',
  prompt: 'Hello',
  voice: 'alloy',
  stream,
});

const text = (body: string | Uint8Array): string =>
  typeof body === 'string' ? body : Buffer.from(body).toString('utf8');

/** Ends with exactly one `[DONE]`, every other event valid JSON, one outcome, no key, no base URL. */
const expectCleanEnd = (relayed: Relayed, where: string): string[] => {
  const events = dataOf(relayed.out);
  expect(
    {
      endsWithDone: relayed.out.endsWith('data: [DONE]\n\n'),
      dones: events.filter((data) => data === '[DONE]').length,
      notJson: events.slice(0, -1).filter((data) => !isJson(data)),
      outcomes: relayed.outcomes.map((outcome) => outcome.aborted),
      leaks: [CONFORMANCE_KEY, BASE_URL].filter((secret) => relayed.out.includes(secret)),
    },
    where,
  ).toEqual({ endsWithDone: true, dones: 1, notJson: [], outcomes: [false], leaks: [] });
  return events;
};

/**
 * A stream the provider's error ended: that error is the last event, there is no `[DONE]` (the
 * answer is not complete), every event is valid JSON, one outcome, no key, no base URL.
 */
const expectErrorEnd = (relayed: Relayed, where: string): string[] => {
  const events = dataOf(relayed.out);
  const last = events.at(-1);
  expect(
    {
      lastIsError: last !== undefined && isJson(last) && 'error' in (JSON.parse(last) as object),
      dones: events.filter((data) => data === '[DONE]').length,
      notJson: events.filter((data) => !isJson(data)),
      outcomes: relayed.outcomes.map((outcome) => outcome.aborted),
      leaks: [CONFORMANCE_KEY, BASE_URL].filter((secret) => relayed.out.includes(secret)),
    },
    where,
  ).toEqual({ lastIsError: true, dones: 0, notJson: [], outcomes: [false], leaks: [] });
  return events;
};

/**
 * The conformance suite every adaptor runs (as Hono runs its shared router cases once per router):
 * URLs stay under the base URL, the key goes where the provider wants it and nowhere else, junk
 * error bodies read as nothing, recorded streams end cleanly however they are cut, and errors reach
 * the client without the key.
 */
export const describeAdaptorConformance = (subject: ConformanceSubject): void => {
  const { adaptor, key: placement, recordings } = subject;
  const channelOf = (baseUrl: string) => ({
    id: 7,
    type: subject.type,
    key: 'signed' in subject.key ? subject.key.signed(CONFORMANCE_KEY) : CONFORMANCE_KEY,
    baseUrl,
    config: subject.config ?? {},
  });
  const metaOf = (mode: RelayMode, stream: boolean, baseUrl: string = BASE_URL): RelayRequestMeta => ({
    mode,
    path: PATHS[mode],
    model: subject.model,
    stream,
    channel: channelOf(baseUrl),
    body: bodyOf(subject.model, stream),
    clientHeaders: {},
    ...(subject.accessToken ? { token: CONFORMANCE_TOKEN } : {}),
  });
  /** What the key placement carries: the channel's key, or the access token fetched with it. */
  const sent = subject.accessToken ? CONFORMANCE_TOKEN : CONFORMANCE_KEY;

  describe(`adaptor conformance: ${subject.name}`, () => {
    // Translated chunks carry `created`: one clock for every run, so every split answers the same bytes.
    let clock: MockInstance<() => number> | undefined;
    beforeAll(() => {
      clock = vi.spyOn(Date, 'now').mockReturnValue(1_750_000_000_000);
    });
    afterAll(() => clock?.mockRestore());

    it.each(CONFORMANCE_BASE_URLS)('builds every mode’s URL under %s, the key only where wanted', (base) => {
      expect(adaptor.modes.length).toBeGreaterThan(0);
      for (const mode of adaptor.modes)
        for (const stream of [false, true]) {
          const where = `${mode}, stream ${String(stream)}`;
          const meta = metaOf(mode, stream, base);
          const request = adaptor.buildRequest(bodyOf(subject.model, stream), meta);
          const under = subject.webSocket ? base.replace(/^http/, 'ws') : base;
          expect(request.url.startsWith(`${under}/`) || request.url.startsWith(`${under}?`), where).toBe(
            true,
          );
          const url = new URL(request.url);
          if ('query' in placement) {
            expect(url.searchParams.get(placement.query), where).toBe(CONFORMANCE_KEY);
            url.searchParams.delete(placement.query);
          }
          expect(url.href, where).not.toContain(CONFORMANCE_KEY);
          expect(text(request.body), where).not.toContain(CONFORMANCE_KEY);
          const headers = Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value]);
          if ('header' in placement)
            expect(Object.fromEntries(headers)[placement.header], where).toBe(
              `${placement.scheme ?? ''}${sent}`,
            );
          const others = headers.filter(([name]) => !('header' in placement) || name !== placement.header);
          expect(
            others.filter(([, value]) => value?.includes(CONFORMANCE_KEY) || value?.includes(sent)),
            where,
          ).toEqual([]);
          if (subject.accessToken) {
            expect(url.href, where).not.toContain(CONFORMANCE_TOKEN);
            expect(text(request.body), where).not.toContain(CONFORMANCE_TOKEN);
          }
        }
    });

    it('reads its recorded error, and answers it without the key or the base URL, at its status', () => {
      const raw = recordings.error(CONFORMANCE_KEY, BASE_URL);
      expect(adaptor.parseError(JSON.parse(raw))?.message).toContain(CONFORMANCE_KEY);
      for (const status of [400, 401, 403, 429, 500, 503]) {
        const answer = openAiErrorOf(upstreamError(status, raw, adaptor, channelOf(BASE_URL)), 'req-1');
        expect(answer.status).toBe(status);
        expect(answer.body.error.message).toContain('[redacted]');
        expect(JSON.stringify(answer.body)).not.toContain(CONFORMANCE_KEY);
        expect(JSON.stringify(answer.body)).not.toContain(BASE_URL);
      }
    });

    // upstreamError scrubs every field: a proxy may quote the key in the type, code or param too.
    it('answers an error quoting the key in every field without the key', () => {
      const raw = JSON.stringify(
        quotedInEveryField(JSON.parse(recordings.error('', BASE_URL)), `key ${CONFORMANCE_KEY}`),
      );
      const answer = openAiErrorOf(upstreamError(401, raw, adaptor, channelOf(BASE_URL)), 'req-1');
      expect(JSON.stringify(answer.body)).not.toContain(CONFORMANCE_KEY);
    });

    it('reads junk error bodies as nothing, and never throws', () => {
      for (const junk of JUNK_ERROR_BODIES)
        expect(adaptor.parseError(junk), JSON.stringify(junk)?.slice(0, 60)).toBeUndefined();
    });

    it('answers a junk raw error body with a clear error of the upstream status, without the key', () => {
      for (const raw of junkRawBodies(CONFORMANCE_KEY, BASE_URL))
        for (const status of [400, 401, 429, 500, 502]) {
          const error = upstreamError(status, raw, adaptor, channelOf(BASE_URL));
          const { body } = openAiErrorOf(error, 'req-1');
          expect(error.status, raw.slice(0, 60)).toBe(status);
          expect(body.error, raw.slice(0, 60)).toEqual({
            message: `bad response status code ${status} (request id: req-1)`,
            type: 'upstream_error',
            param: String(status),
            code: 'bad_response_status_code',
          });
        }
    });

    it('parses its recorded answer without the key', () => {
      const parsed = adaptor.parseResponse(recordings.response, metaOf('chat', false));
      expect(JSON.stringify(parsed)).not.toContain(CONFORMANCE_KEY);
      expect(parsed.body).toMatchObject({ object: 'chat.completion' });
    });

    it('has recorded streams with characters of several bytes', () => {
      expect(recordings.streams.length).toBeGreaterThan(0);
      for (const { bytes } of recordings.streams) expect(insideCharacters(bytes).length).toBeGreaterThan(0);
    });

    for (const { name, bytes } of recordings.streams)
      it(`relays ${name} alike in pieces of every size and cut inside every character`, async () => {
        const meta = metaOf('chat', true);
        const reference = await relayPieces(adaptor, meta, [bytes], true);
        const events = expectCleanEnd(reference, 'whole');
        const expected = subject.expected?.[name];
        if (subject.expected) expect(expected, `an expectation for ${name}`).toBeDefined();
        if (expected) {
          expect(reference.outcomes[0]).toEqual({
            usage: expected.usage,
            text: expected.text,
            aborted: false,
          });
          expect(contentOf(events)).toBe(expected.content);
        }
        expect(relayEnded(adaptor, meta, bytes, true), 'answered at once').toEqual(reference);
        const splits: [string, Buffer[]][] = [
          ...pieceSizes(bytes.length).map((size): [string, Buffer[]] => [
            `pieces of ${size}`,
            piecesOf(bytes, size),
          ]),
          ...insideCharacters(bytes).map((at): [string, Buffer[]] => [
            `cut at byte ${at}`,
            [bytes.subarray(0, at), bytes.subarray(at)],
          ]),
        ];
        for (const [where, pieces] of splits) {
          const relayed = await relayPieces(adaptor, meta, pieces, true);
          expectCleanEnd(relayed, where);
          expect(relayed, where).toEqual(reference);
        }
        // Without the client asking for usage: the same content, the same outcome, split or whole.
        const quiet = await relayPieces(adaptor, meta, [bytes], false);
        expect(contentOf(expectCleanEnd(quiet, 'no usage asked'))).toBe(contentOf(events));
        expect(quiet.outcomes).toEqual(reference.outcomes);
        for (const size of [1, 2, 3, 7])
          expect(await relayPieces(adaptor, meta, piecesOf(bytes, size), false), `${size}`).toEqual(quiet);
      });

    // A provider answering in one body has no mid-stream error to relay.
    const midStreamIt = subject.oneBody === true ? it.skip : it;
    const midStream = async (size: number): Promise<{ relayed: Relayed; events: string[] }> => {
      const bytes = recordings.midStreamError(CONFORMANCE_KEY, BASE_URL);
      const relayed = await relayPieces(adaptor, metaOf('chat', true), piecesOf(bytes, size), true);
      return { relayed, events: expectErrorEnd(relayed, `pieces of ${size}`) };
    };

    midStreamIt(
      'keeps the key out of a stream broken by the provider’s error, and ends it with that error, no [DONE]',
      async () => {
        for (const size of [1, 2, 3, 7, 64, 1 << 20]) await midStream(size);
      },
    );

    // An OpenAI-format stream's `data: {"error":…}` chunk (no choices, no usage) is not dropped like a
    // keep-alive: the client must not take the answer for complete.
    midStreamIt(
      'passes the provider’s mid-stream error on as OpenAI’s error event, scrubbed, as its last event',
      async () => {
        for (const size of [1, 7, 1 << 20]) {
          const { events } = await midStream(size);
          const errors = errorEvents(events);
          expect(errors).toHaveLength(1);
          expect(errors[0]?.error).toMatchObject({
            message: expect.stringContaining('[redacted]') as unknown,
            type: expect.any(String) as unknown,
          });
          expect(JSON.stringify(errors[0])).not.toContain(CONFORMANCE_KEY);
        }
      },
    );

    // Every field of a mid-stream error is scrubbed, not only its message.
    midStreamIt('keeps the key out of a mid-stream error quoting it in every field', async () => {
      if (subject.midStreamErrorWith) {
        const quoted = subject.midStreamErrorWith(CONFORMANCE_KEY, BASE_URL, (data) =>
          quotedInEveryField(data, `key ${CONFORMANCE_KEY}`),
        );
        const relayed = await relayPieces(adaptor, metaOf('chat', true), [quoted], true);
        expect(relayed.out).toContain('[redacted]');
        expect(relayed.out).not.toContain(CONFORMANCE_KEY);
        return;
      }
      const lines = recordings.midStreamError(CONFORMANCE_KEY, BASE_URL).toString('utf8').split('\n');
      const at = lines.findIndex((line) => line.includes(CONFORMANCE_KEY));
      const data = JSON.parse((lines[at] ?? '').slice('data: '.length).trim()) as unknown;
      lines[at] = `data: ${JSON.stringify(quotedInEveryField(data, `key ${CONFORMANCE_KEY}`))}`;
      const bytes = Buffer.from(lines.join('\n'));
      const relayed = await relayPieces(adaptor, metaOf('chat', true), [bytes], true);
      expect(relayed.out).not.toContain(CONFORMANCE_KEY);
    });
  });
};
