import { describe, expect, it } from 'vitest';
import { AppError, relayError } from './app-error.js';

describe('AppError', () => {
  it('keeps no stack for a client error, a stack for a server error, and leaves the limit as it was', () => {
    const depth = Error.stackTraceLimit;
    const refused = relayError(401, 'invalid_token', 'invalid token');
    expect(refused).toBeInstanceOf(AppError);
    expect(refused.message).toBe('invalid token');
    expect(refused.status).toBe(401);
    expect(refused.stack ?? '').not.toContain('app-error.test');
    const failed = relayError(502, 'bad_response', 'the upstream answered garbage');
    expect(failed.stack).toContain('app-error.test');
    expect(Error.stackTraceLimit).toBe(depth);
    expect(new Error('plain').stack).toContain('app-error.test');
  });
});
