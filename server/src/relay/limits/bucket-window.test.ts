import { describe, expect, it } from 'vitest';
import { BucketWindow } from './bucket-window.js';

describe('BucketWindow', () => {
  it('sums its buckets, drops the ones that left and keeps the oldest with anything in it', () => {
    const window = new BucketWindow();
    window.change(10, 5);
    window.change(11, 7);
    window.change(12, 1);
    expect(window.roll(10).total()).toBe(13);
    expect(window.oldestBucket()).toBe(10);
    expect(window.roll(11).total()).toBe(8);
    expect(window.oldestBucket()).toBe(11);
    expect(window.buckets(11)).toEqual([
      [11, 7],
      [12, 1],
    ]);
  });

  it('never takes a bucket below 0, and finds the next oldest when the oldest empties', () => {
    const window = new BucketWindow();
    window.change(20, 4);
    window.change(21, 6);
    // More taken back than the bucket held: the bucket goes, and only what it held leaves the sum.
    window.change(20, -9);
    expect(window.total()).toBe(6);
    expect(window.oldestBucket()).toBe(21);
    window.change(21, -6);
    expect(window.total()).toBe(0);
    expect(window.oldestBucket()).toBeUndefined();
    expect(window.buckets(0)).toEqual([]);
  });
});
