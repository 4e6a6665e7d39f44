import type { IncomingMessage } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { relayError } from '../../lib/app-error.js';

/** A body over MAX_REQUEST_BODY_MB: 413, for every relay route. */
export const tooLarge = (limit: number) =>
  relayError(
    413,
    'request_too_large',
    `the request body is larger than ${limit} bytes`,
    'invalid_request_error',
  );

/** Reads the request body from the socket, refusing more than `limit` bytes. */
export const readBody = (request: IncomingMessage, limit: number): Buffer | Promise<Buffer> => {
  // Usually the whole body came with the headers and the parser has already buffered all of it:
  // take it at once rather than through the stream's events a few ticks later.
  if (request.complete && request.readableLength <= limit) {
    const buffered = request.read() as Buffer | null;
    return buffered ?? Buffer.alloc(0);
  }
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.off('data', onData);
        request.resume();
        reject(tooLarge(limit));
      } else parts.push(chunk);
    };
    request.on('data', onData);
    request.once('end', () => resolve(parts.length === 1 && parts[0] ? parts[0] : Buffer.concat(parts)));
    request.once('error', reject);
    request.once('close', () => {
      if (!request.complete) reject(relayError(499, 'client_closed', 'the client closed the request'));
    });
  });
};

/** The body as sent, or inflated when the client sent it gzip-encoded (bounded like a plain body). */
export const inflate = (request: IncomingMessage, raw: Buffer, limit: number): Buffer => {
  if ((request.headers['content-encoding'] ?? '').trim().toLowerCase() !== 'gzip') return raw;
  try {
    return gunzipSync(raw, { maxOutputLength: limit });
  } catch (error) {
    if (error instanceof RangeError) throw tooLarge(limit);
    throw relayError(
      400,
      'invalid_gzip',
      'the gzip-encoded body could not be decoded',
      'invalid_request_error',
    );
  }
};
