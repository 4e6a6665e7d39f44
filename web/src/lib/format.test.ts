// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { formatNumber, formatQuota, formatTimestamp, groupColor, groupsOf, truncate } from './format.js';

describe('formatTimestamp', () => {
  it('shows epoch seconds as local YYYY-MM-DD HH:mm:ss', () => {
    const seconds = new Date(2024, 0, 5, 7, 8, 9).getTime() / 1000;
    expect(formatTimestamp(seconds)).toBe('2024-01-05 07:08:09');
    expect(formatTimestamp(new Date(2023, 11, 31, 23, 59, 59).getTime() / 1000)).toBe('2023-12-31 23:59:59');
  });
});

describe('formatQuota', () => {
  const currency = { displayInCurrency: true, quotaPerUnit: 500_000 };
  const plain = { displayInCurrency: false, quotaPerUnit: 500_000 };

  it('shows currency with two decimals through QuotaPerUnit', () => {
    expect(formatQuota(500_000, currency)).toBe('$1.00');
    expect(formatQuota(1_234_567, currency)).toBe('$2.47');
    expect(formatQuota(0, currency)).toBe('$0.00');
    expect(formatQuota(5, currency, 6)).toBe('$0.000010');
    expect(formatQuota(100, { displayInCurrency: true, quotaPerUnit: 100 })).toBe('$1.00');
  });

  it("separates thousands: root's quota reads at a glance", () => {
    expect(formatQuota(500_000_000_000_000, currency)).toBe('$1,000,000,000.00');
    expect(formatQuota(617_283_500, currency)).toBe('$1,234.57');
    expect(formatQuota(-1_000_000_000, currency)).toBe('-$2,000.00');
    expect(formatQuota(500_000_000_000_000, plain)).toBe('500,000.0B');
    expect(formatQuota(12_345_678, plain)).toBe('12.3M');
  });

  it('abbreviates with one decimal from 10 thousand (k), 1 million (M) and 1 billion (B)', () => {
    expect(formatQuota(9_999, plain)).toBe('9999');
    expect(formatQuota(10_000, plain)).toBe('10.0k');
    expect(formatQuota(123_456, plain)).toBe('123.5k');
    expect(formatQuota(1_000_000, plain)).toBe('1.0M');
    expect(formatQuota(2_500_000_000, plain)).toBe('2.5B');
    expect(formatNumber(0)).toBe('0');
  });

  it('falls back to the default QuotaPerUnit when the stored one is not positive', () => {
    expect(formatQuota(500_000, { displayInCurrency: true, quotaPerUnit: 0 })).toBe('$1.00');
  });
});

describe('truncate', () => {
  it('cuts usernames longer than 15 characters with an ellipsis', () => {
    expect(truncate('abcdefghijklmno')).toBe('abcdefghijklmno');
    expect(truncate('abcdefghijklmnop')).toBe('abcdefghijklmno...');
    expect(truncate('用户名用户名用户名用户名用户名用户')).toBe('用户名用户名用户名用户名用户名...');
  });
});

describe('group badges', () => {
  it('colours vip and pro yellow, svip and premium red, others neutral', () => {
    expect(['vip', 'pro', 'svip', 'premium', 'default'].map(groupColor)).toEqual([
      'yellow',
      'yellow',
      'red',
      'red',
      'gray',
    ]);
  });

  it('reads an empty group list as default', () => {
    expect(groupsOf('')).toEqual(['default']);
    expect(groupsOf('vip, svip,')).toEqual(['vip', 'svip']);
  });
});
