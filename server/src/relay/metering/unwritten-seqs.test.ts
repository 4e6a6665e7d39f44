import { describe, expect, it } from 'vitest';
import { AHEAD_LIMIT, UnwrittenSeqs } from './unwritten-seqs.js';

/** The same questions answered from a plain set of every unwritten number. */
const reference = () => {
  let next = 1;
  const unwritten = new Set<number>();
  return {
    take: () => {
      unwritten.add(next);
      return next++;
    },
    written: (seq: number) => unwritten.delete(seq),
    oldest: () => (unwritten.size > 0 ? Math.min(...unwritten) : next),
    count: () => unwritten.size,
  };
};

describe('UnwrittenSeqs', () => {
  it('hands out numbers in order and counts those not written', () => {
    const seqs = new UnwrittenSeqs();
    expect([seqs.take(), seqs.take(), seqs.take()]).toEqual([1, 2, 3]);
    expect(seqs.count).toBe(3);
    expect(seqs.oldest).toBe(1);
    seqs.written(1);
    seqs.written(2);
    expect(seqs.oldest).toBe(3);
    expect(seqs.count).toBe(1);
    seqs.written(3);
    expect(seqs.oldest).toBe(4);
    expect(seqs.next).toBe(4);
    expect(seqs.count).toBe(0);
  });

  it('keeps the lowest unwritten number when later ones are written first', () => {
    const seqs = new UnwrittenSeqs();
    for (let i = 0; i < 5; i += 1) seqs.take();
    seqs.written(4);
    seqs.written(2);
    expect(seqs.oldest).toBe(1);
    expect(seqs.count).toBe(3);
    seqs.written(1);
    expect(seqs.oldest).toBe(3);
    seqs.written(3);
    expect(seqs.oldest).toBe(5);
    expect(seqs.count).toBe(1);
  });

  it('ignores a number written twice or never handed out', () => {
    const seqs = new UnwrittenSeqs();
    seqs.take();
    seqs.take();
    seqs.written(2);
    seqs.written(2);
    seqs.written(7);
    seqs.written(0);
    expect(seqs.count).toBe(1);
    seqs.written(1);
    seqs.written(1);
    expect(seqs.count).toBe(0);
    expect(seqs.oldest).toBe(3);
  });

  it('keeps what it holds bounded when a number is never written, and still answers it as the oldest', () => {
    const seqs = new UnwrittenSeqs();
    const stuck = seqs.take();
    for (let i = 0; i < AHEAD_LIMIT * 3; i += 1) seqs.written(seqs.take());
    expect(seqs.kept).toBeLessThanOrEqual(AHEAD_LIMIT + 1);
    expect(seqs.oldest).toBe(stuck);
    expect(seqs.count).toBe(1);
    seqs.written(stuck);
    expect(seqs.count).toBe(0);
    expect(seqs.oldest).toBe(seqs.next);
    expect(seqs.kept).toBeLessThanOrEqual(AHEAD_LIMIT);
  });

  it.each([AHEAD_LIMIT, 8, 1])(
    'agrees with a set of every unwritten number over random writes (ahead limit %i)',
    (limit) => {
      let state = 7;
      const random = (below: number) => {
        state = (state * 1103515245 + 12345) % 2147483648;
        return state % below;
      };
      const seqs = new UnwrittenSeqs(1, limit);
      const plain = reference();
      const handed: number[] = [];
      for (let step = 0; step < 8000; step += 1) {
        if (random(3) > 0) {
          const seq = seqs.take();
          expect(plain.take()).toBe(seq);
          handed.push(seq);
        } else if (handed.length > 0) {
          // Mostly the oldest handed out, sometimes one further on (a batch written alone), or past
          // the first few, which then wait long (numbers written much later, or never).
          const roll = random(8);
          const at = roll === 0 ? random(handed.length) : roll === 1 ? Math.min(handed.length - 1, 3) : 0;
          const [seq] = handed.splice(at, 1) as [number];
          seqs.written(seq);
          plain.written(seq);
        }
        expect(seqs.count).toBe(plain.count());
        expect(seqs.oldest).toBe(plain.oldest());
        expect(seqs.kept).toBeLessThanOrEqual(limit + plain.count());
      }
    },
  );
});
