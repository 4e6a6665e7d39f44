import type { Context } from 'hono';
import { nowSeconds } from '../lib/time.js';
import type { AppEnv } from '../http/app-env.js';

/** Pulls one chunk at a time, so a slow client slows the reading down instead of filling memory. */
const textStream = (chunks: AsyncGenerator<string, void, undefined>): ReadableStream<Uint8Array> => {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    cancel: async () => {
      await chunks.return(undefined);
    },
  });
};

/** A CSV download (`<name>-<unix time>.csv`) streamed from its chunks, never cached. */
export const csvResponse = (
  c: Context<AppEnv>,
  chunks: AsyncGenerator<string, void, undefined>,
  name: string,
) =>
  c.body(textStream(chunks), 200, {
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="${name}-${nowSeconds()}.csv"`,
    'Cache-Control': 'no-store',
  });
