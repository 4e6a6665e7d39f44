import { describe, expect, it } from 'vitest';
import { createRequestId } from './time.js';

describe('createRequestId', () => {
  it('is the local time to the second, then nine and eight digits (one-api’s form)', () => {
    const id = createRequestId(new Date(2026, 10, 22, 3, 4, 5, 678), () => 0.5);
    expect(id).toBe('20261122030405' + '678500000' + '50000000');
  });

  it('follows the clock across seconds, forwards and backwards', () => {
    const stampOf = (date: Date) => createRequestId(date).slice(0, 14);
    expect(stampOf(new Date(2026, 0, 1, 0, 0, 1))).toBe('20260101000001');
    expect(stampOf(new Date(2026, 0, 1, 0, 0, 1, 999))).toBe('20260101000001');
    expect(stampOf(new Date(2026, 0, 1, 0, 0, 2))).toBe('20260101000002');
    expect(stampOf(new Date(2025, 11, 31, 23, 59, 59))).toBe('20251231235959');
    expect(createRequestId()).toMatch(/^\d{31}$/);
  });
});
