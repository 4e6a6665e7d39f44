/** How long an upstream call may take, step by step, in milliseconds. */
export interface UpstreamTimeouts {
  /** To open the connection (TCP and TLS). */
  readonly connectMs: number;
  /**
   * From the request sent to the first byte the client can be given: the answer's headers, and for
   * a stream its opening (its first event that gives the client something, stream-opening.ts).
   */
  readonly firstByteMs: number;
  /** Between two chunks of the answer's body (a stream's silence; the first chunk too). */
  readonly idleMs: number;
}

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
  constructor() {
    super('the upstream’s stream did not open within its first-byte timeout');
  }
}

/** The step whose timeout `error` is, undefined when it is no timeout of an upstream call. */
export const timeoutStep = (error: unknown): TimeoutStep | undefined => {
  if (!(error instanceof Error)) return undefined;
  const code = 'code' in error ? error.code : undefined;
  return typeof code === 'string' ? STEP_OF_CODE[code] : undefined;
};
