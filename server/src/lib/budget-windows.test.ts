import { describe, expect, it } from 'vitest';
import { BUCKET_SECONDS, bucketOf, rollingReleaseAt, windowSpans } from './budget-windows.js';

const at = (iso: string) => Date.parse(iso);
const seconds = (iso: string) => Date.parse(iso) / 1000;

describe('budget windows', () => {
  it('starts calendar windows at midnight, Monday and the 1st in UTC', () => {
    // 2026-11-25 is a Wednesday.
    const spans = windowSpans(at('2026-11-25T13:37:12Z'), 'calendar', 'UTC');
    expect(spans.daily).toEqual({
      start: seconds('2026-11-25T00:00:00Z'),
      resetsAt: seconds('2026-11-26T00:00:00Z'),
    });
    expect(spans.weekly).toEqual({
      start: seconds('2026-11-23T00:00:00Z'),
      resetsAt: seconds('2026-11-30T00:00:00Z'),
    });
    expect(spans.monthly).toEqual({
      start: seconds('2026-11-01T00:00:00Z'),
      resetsAt: seconds('2026-12-01T00:00:00Z'),
    });
    // The 5 hours roll: the quarter hour their start falls in is counted whole.
    expect(spans['5h']).toEqual({ start: seconds('2026-11-25T08:30:00Z'), resetsAt: undefined });
  });

  it('follows the time zone: Shanghai midnight is 16:00 UTC the day before', () => {
    const spans = windowSpans(at('2026-11-30T17:00:00Z'), 'calendar', 'Asia/Shanghai');
    // 01:00 on Tuesday 1 December in Shanghai.
    expect(spans.daily.start).toBe(seconds('2026-11-30T16:00:00Z'));
    expect(spans.weekly.start).toBe(seconds('2026-11-29T16:00:00Z'));
    expect(spans.monthly.start).toBe(seconds('2026-11-30T16:00:00Z'));
    expect(spans.monthly.resetsAt).toBe(seconds('2026-12-31T16:00:00Z'));
  });

  it('keeps midnight across a daylight saving change (New York, 1 November 2026)', () => {
    const spans = windowSpans(at('2026-11-01T20:00:00Z'), 'calendar', 'America/New_York');
    // Midnight was still EDT (UTC−4); the next midnight is EST (UTC−5).
    expect(spans.daily.start).toBe(seconds('2026-11-01T04:00:00Z'));
    expect(spans.daily.resetsAt).toBe(seconds('2026-11-02T05:00:00Z'));
  });

  it('starts on a quarter hour in a zone offset by 45 minutes (Kathmandu)', () => {
    const spans = windowSpans(at('2026-11-25T10:00:00Z'), 'calendar', 'Asia/Kathmandu');
    expect(spans.daily.start).toBe(seconds('2026-11-24T18:15:00Z'));
    expect(spans.daily.start % BUCKET_SECONDS).toBe(0);
  });

  it('rolls every window in rolling mode', () => {
    const now = at('2026-11-25T13:37:12Z');
    const spans = windowSpans(now, 'rolling', 'Asia/Shanghai');
    expect(spans.daily).toEqual({ start: seconds('2026-11-24T13:30:00Z'), resetsAt: undefined });
    expect(spans.weekly.start).toBe(seconds('2026-11-18T13:30:00Z'));
    expect(spans.monthly.start).toBe(seconds('2026-10-26T13:30:00Z'));
  });

  it('says when a rolling window lets its oldest spending go', () => {
    const bucket = bucketOf(seconds('2026-11-25T08:40:00Z'));
    expect(bucket).toBe(seconds('2026-11-25T08:30:00Z'));
    expect(rollingReleaseAt('5h', bucket)).toBe(seconds('2026-11-25T13:45:00Z'));
  });
});
