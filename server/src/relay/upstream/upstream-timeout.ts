/** The steps of an upstream call that time out (upstream.ts): each fails with its own error. */
export type TimeoutStep = 'connect' | 'first_byte' | 'idle';

/** undici's timeout errors (and the WebSocket upstream's, which take their codes), by step. */
const STEP_OF_CODE: Readonly<Record<string, TimeoutStep>> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect',
  UND_ERR_HEADERS_TIMEOUT: 'first_byte',
  UND_ERR_BODY_TIMEOUT: 'idle',
  SLUICE_FIRST_BYTE_TIMEOUT: 'first_byte',
};

/**
 * A stream that did not open within its first-byte timeout (headers came, then only pings or
 * silence): the relay's own timeout, where undici's stop at the headers.
 */
export class FirstByteTimeout extends Error {
  override name = 'FirstByteTimeout';
  readonly code = 'SLUICE_FIRST_BYTE_TIMEOUT';
  constructor(ms: number) {
    super(`the upstream sent nothing for the client within ${ms} ms`);
  }
}

/** The step whose timeout `error` is, undefined when it is no timeout of an upstream call. */
export const timeoutStep = (error: unknown): TimeoutStep | undefined => {
  if (!(error instanceof Error)) return undefined;
  const code = 'code' in error ? error.code : undefined;
  return typeof code === 'string' ? STEP_OF_CODE[code] : undefined;
};
