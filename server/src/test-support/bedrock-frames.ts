import { readFileSync } from 'node:fs';
import { encodeEventStreamFrame } from '../relay/providers/bedrock/index.js';
import type { Recordings } from './adaptor-conformance-support.js';

/** One recorded ConverseStream event: its `:event-type` (or exception name), payload, message type. */
export type RecordedFrame = readonly [string, unknown, ('event' | 'exception')?];

/** ConverseStream frames of recorded events (the bytes Bedrock sends). */
export const converseFrames = (events: readonly RecordedFrame[]): Buffer =>
  Buffer.concat(
    events.map(([type, payload, kind]) =>
      encodeEventStreamFrame(type, JSON.stringify(payload), kind ?? 'event'),
    ),
  );

/** InvokeModelWithResponseStream frames: each Anthropic event base64 in a `chunk` event's `bytes`. */
export const claudeChunkFrames = (events: readonly unknown[]): Buffer =>
  Buffer.concat(
    events.map((event) =>
      encodeEventStreamFrame(
        'chunk',
        JSON.stringify({ bytes: Buffer.from(JSON.stringify(event)).toString('base64') }),
      ),
    ),
  );

const fill = (text: string, key: string, baseUrl: string): string =>
  text.replaceAll('{{key}}', key).replaceAll('{{base_url}}', baseUrl);

/** A recording file of the Bedrock folder, read as JSON (placeholders filled). */
export const readBedrockRecording = (name: string, key = '', baseUrl = ''): unknown =>
  JSON.parse(
    fill(readFileSync(new URL(`../relay/providers/bedrock/${name}`, import.meta.url), 'utf8'), key, baseUrl),
  ) as unknown;

/** The Bedrock folder's Converse recordings, as the conformance suite reads them (streams framed). */
export const bedrockConverseRecordings = (): Recordings => ({
  streams: ['bedrock-converse-stream.recorded.json', 'bedrock-converse-tools-stream.recorded.json'].map(
    (name) => ({ name, bytes: converseFrames(readBedrockRecording(name) as RecordedFrame[]) }),
  ),
  response: readBedrockRecording('bedrock-converse-response.recorded.json'),
  error: (key, baseUrl) =>
    fill(
      readFileSync(
        new URL('../relay/providers/bedrock/bedrock-error.recorded.json', import.meta.url),
        'utf8',
      ),
      key,
      baseUrl,
    ),
  midStreamError: (key, baseUrl) =>
    converseFrames(
      readBedrockRecording(
        'bedrock-converse-mid-stream-error.recorded.json',
        key,
        baseUrl,
      ) as RecordedFrame[],
    ),
});

/** The mid-stream error recording with its exception's payload rewritten (the conformance suite's quoting). */
export const bedrockMidStreamErrorWith = (
  key: string,
  baseUrl: string,
  rewrite: (data: unknown) => unknown,
): Buffer =>
  converseFrames(
    (
      readBedrockRecording('bedrock-converse-mid-stream-error.recorded.json', key, baseUrl) as RecordedFrame[]
    ).map(([type, payload, kind]): RecordedFrame =>
      kind === 'exception' ? [type, rewrite(payload), kind] : [type, payload, kind],
    ),
  );
