// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import {
  defaultFilters,
  distinctDigits,
  isEmptyUsage,
  niceTicks,
  quotaDigits,
  rangeOf,
  totalsOf,
  usageRequest,
} from './dashboard-model.js';
import { formatQuota } from '../../lib/format.js';

const now = new Date(2025, 4, 20, 15, 30, 0);
const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

describe('dashboard range', () => {
  it('reads the last 7 or 30 days from local midnight to now', () => {
    const filters = defaultFilters(now);
    expect(rangeOf(filters, now)).toEqual({ start: seconds(new Date(2025, 4, 14)), end: seconds(now) });
    expect(rangeOf({ ...filters, preset: '30' }, now)).toEqual({
      start: seconds(new Date(2025, 3, 21)),
      end: seconds(now),
    });
  });

  it('reads whole custom days and refuses a reversed or too long range', () => {
    const custom = { ...defaultFilters(now), preset: 'custom' as const };
    expect(rangeOf({ ...custom, startDate: '2025-05-01', endDate: '2025-05-02' }, now)).toEqual({
      start: seconds(new Date(2025, 4, 1)),
      end: seconds(new Date(2025, 4, 3)) - 1,
    });
    expect(rangeOf({ ...custom, startDate: '2025-05-03', endDate: '2025-05-02' }, now)).toBe(
      'dashboard.range.invalid',
    );
    expect(rangeOf({ ...custom, startDate: '', endDate: '2025-05-02' }, now)).toBe('dashboard.range.invalid');
    expect(rangeOf({ ...custom, startDate: '2023-01-01', endDate: '2025-05-02' }, now)).toBe(
      'dashboard.range.tooLong',
    );
  });
});

describe('dashboard request', () => {
  const range = { start: 100, end: 200 };
  const base = { start_timestamp: 100, end_timestamp: 200, tz_offset: 480 };
  const filters = defaultFilters(now);

  it('reads the caller’s own usage for users, and for admins looking at themselves', () => {
    expect(usageRequest({ ...filters, scope: 'all' }, range, false, 480)).toEqual({
      path: '/api/log/self/usage',
      query: base,
    });
    expect(usageRequest(filters, range, true, 480)?.path).toBe('/api/log/self/usage');
  });

  it('gives admins everyone, one user or one channel', () => {
    expect(usageRequest({ ...filters, scope: 'all' }, range, true, 480)).toEqual({
      path: '/api/log/usage',
      query: base,
    });
    expect(usageRequest({ ...filters, scope: 'user', username: ' bob ' }, range, true, 480)).toEqual({
      path: '/api/log/usage',
      query: { ...base, username: 'bob' },
    });
    expect(usageRequest({ ...filters, scope: 'user', username: ' ' }, range, true, 480)).toBeUndefined();
    expect(usageRequest({ ...filters, scope: 'channel', channel: 4 }, range, true, 480)).toEqual({
      path: '/api/log/usage',
      query: { ...base, channel: 4 },
    });
    expect(usageRequest({ ...filters, scope: 'channel', channel: 0 }, range, true, 480)).toBeUndefined();
  });
});

describe('dashboard totals', () => {
  const day = (requests: number) => ({
    day: '2025-05-20',
    requests,
    prompt_tokens: requests * 10,
    completion_tokens: requests * 5,
    quota: requests * 100,
  });

  it('sums the days and knows an empty range', () => {
    expect(totalsOf([day(1), day(2)])).toEqual({
      requests: 3,
      prompt_tokens: 30,
      completion_tokens: 15,
      quota: 300,
    });
    expect(isEmptyUsage({ days: [day(0)], models: [] })).toBe(true);
    expect(isEmptyUsage({ days: [day(1)], models: [] })).toBe(false);
  });
});

describe('quota decimals', () => {
  const currency = (quota: number, digits = 2) => `$${(quota / 500_000).toFixed(digits)}`;
  it('uses the fewest decimals that tell the value from zero', () => {
    expect(quotaDigits(currency, 0)).toBe(2);
    expect(quotaDigits(currency, 500_000)).toBe(2);
    expect(quotaDigits(currency, 300)).toBe(4);
    expect(quotaDigits(currency, 20)).toBe(6);
    expect(quotaDigits((quota) => String(quota), 20)).toBe(2);
  });
});

describe('value axes', () => {
  const dollars = (quota: number, digits = 2) =>
    formatQuota(quota, { displayInCurrency: true, quotaPerUnit: 500_000 }, digits);

  it('steps by 1, 2, 2.5 or 5 times a power of ten, whole for counts, never twice the same tick', () => {
    expect(niceTicks(2, true)).toEqual([0, 1, 2]);
    expect(niceTicks(1, true)).toEqual([0, 1]);
    expect(niceTicks(0, true)).toEqual([0, 1]);
    expect(niceTicks(63, true)).toEqual([0, 20, 40, 60, 80]);
    expect(niceTicks(6150, false)).toEqual([0, 2000, 4000, 6000, 8000]);
    expect(niceTicks(0.7, false)).toEqual([0, 0.2, 0.4, 0.6, 0.8]);
    for (const max of [3, 7, 99, 1234, 98_765, 3_300_000])
      for (const integer of [true, false]) {
        const ticks = niceTicks(max, integer);
        expect(new Set(ticks).size, `${max}`).toBe(ticks.length);
        expect(ticks.at(-1), `${max}`).toBeGreaterThanOrEqual(max);
        expect(ticks.length, `${max}`).toBeLessThanOrEqual(6);
      }
  });

  it('shows quota ticks with as many decimals as keep their labels apart', () => {
    // $0.0123 at most: two decimals would read $0.00, $0.00, $0.01, $0.01.
    const ticks = niceTicks(6150, false);
    expect(ticks.map((tick) => dollars(tick))).toEqual(['$0.00', '$0.00', '$0.01', '$0.01', '$0.02']);
    const digits = distinctDigits(ticks, dollars);
    expect(digits).toBe(3);
    expect(new Set(ticks.map((tick) => dollars(tick, digits))).size).toBe(ticks.length);
    expect(distinctDigits(niceTicks(5_000_000, false), dollars)).toBe(2);
  });
});
