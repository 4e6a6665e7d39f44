import { describe, expect, it } from 'vitest';
import { WindowQueue } from './window-queue.js';

describe('WindowQueue', () => {
  it('gives its entries back first in, first out, across compactions', () => {
    const queue = new WindowQueue<number>();
    const taken: number[] = [];
    let next = 0;
    // Pushes and shifts interleaved over many compactions (every 1024 taken at least).
    for (let round = 0; round < 50; round += 1) {
      for (let index = 0; index < 300; index += 1) queue.push((next += 1));
      for (let index = 0; index < 250; index += 1) taken.push(queue.shift() ?? -1);
    }
    expect(taken).toEqual(Array.from({ length: 12_500 }, (_, index) => index + 1));
    expect(queue.size()).toBe(50 * 300 - 12_500);
    expect(queue.first()).toBe(12_501);
    expect([...queue]).toEqual(Array.from({ length: 2500 }, (_, index) => 12_501 + index));
  });

  it('answers undefined when empty, and starts again after being emptied', () => {
    const queue = new WindowQueue<string>();
    expect(queue.first()).toBeUndefined();
    expect(queue.shift()).toBeUndefined();
    queue.push('a');
    expect(queue.shift()).toBe('a');
    expect(queue.size()).toBe(0);
    queue.push('b');
    expect([...queue]).toEqual(['b']);
  });
});
