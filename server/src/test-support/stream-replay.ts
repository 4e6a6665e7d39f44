import { createSseParser } from '../lib/sse.js';
import type {
  TranslatingAdaptor,
  ChannelMeta,
  RelayRequestMeta,
  StreamStep,
  Usage,
} from '../relay/providers/adaptor.js';

/** A request meta for adaptor fixtures: chat on a channel of the given type, overridable. */
export const fixtureMeta = (
  channel: Partial<ChannelMeta> & Pick<ChannelMeta, 'type' | 'baseUrl'>,
  overrides: Partial<Omit<RelayRequestMeta, 'channel'>> = {},
): RelayRequestMeta => ({
  mode: 'chat',
  path: '/v1/chat/completions',
  model: 'model',
  stream: false,
  body: {},
  clientHeaders: {},
  ...overrides,
  channel: { id: 1, key: 'sk-channel-key', config: {}, ...channel },
});

/** Cuts a transcript into pieces of `size` characters, so lines and events split anywhere. */
export const piecesOf = (text: string, size: number): string[] => {
  const out: string[] = [];
  for (let start = 0; start < text.length; start += size) out.push(text.slice(start, start + size));
  return out;
};

export interface Replay {
  readonly steps: StreamStep[];
  readonly chunks: unknown[];
  /** The last usage a step reported, as the pipeline keeps it. */
  readonly usage: Usage | undefined;
  readonly text: string;
  readonly done: boolean;
}

/** Feeds a transcript to a translating adaptor the way the stream relay does: SSE parser, then its translator. */
export const replayStream = (
  adaptor: TranslatingAdaptor,
  meta: RelayRequestMeta,
  pieces: readonly string[],
): Replay => {
  const parser = createSseParser();
  const translate = adaptor.translateStream(meta);
  const steps: StreamStep[] = [];
  const run = (events: ReturnType<typeof parser.feed>) => {
    for (const event of events) steps.push(translate(event));
  };
  for (const piece of pieces) run(parser.feed(piece));
  run(parser.end());
  let usage: Usage | undefined;
  for (const step of steps) if (step.usage) usage = step.usage;
  return {
    steps,
    chunks: steps.flatMap((step) => [...step.chunks]),
    usage,
    text: steps.map((step) => step.text ?? '').join(''),
    done: steps.some((step) => step.done === true),
  };
};
