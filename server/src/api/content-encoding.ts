/** The encodings the console's files are stored in (web/vite-plugins/precompress.ts). */
export type Encoding = 'br' | 'gzip' | 'identity';

/** `Accept-Encoding` as a map from coding to its q-value (RFC 9110 §12.5.3). */
const qualities = (header: string): Map<string, number> => {
  const accepted = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    if (name === '') continue;
    // A q-value that does not parse takes nothing (never more than the client meant).
    const q = params
      .find((param) => /^\s*q\s*=/.test(param))
      ?.split('=')[1]
      ?.trim();
    const value = q === undefined ? 1 : /^[0-9.]+$/.test(q) ? Number(q) : 0;
    accepted.set(name, Number.isFinite(value) ? Math.min(Math.max(value, 0), 1) : 0);
  }
  return accepted;
};

/**
 * The encoding to send among the `available` copies: the client's highest q-value, brotli before gzip
 * on a tie; identity when the header is absent or takes none of them (`br;q=0` refuses brotli,
 * `*` takes what is not named).
 */
export const chooseEncoding = (header: string | undefined, available: readonly Encoding[]): Encoding => {
  if (header === undefined || header.trim() === '') return 'identity';
  const accepted = qualities(header);
  let best: Encoding = 'identity';
  let bestQ = 0;
  for (const encoding of available) {
    const q =
      accepted.get(encoding) ??
      (encoding === 'gzip' ? accepted.get('x-gzip') : undefined) ??
      accepted.get('*') ??
      0;
    if (q > bestQ) {
      best = encoding;
      bestQ = q;
    }
  }
  return best;
};
