import { describe, expect, it } from 'vitest';
import { bucketOf } from '../db/day-bucket.js';
import { DAY, HOUR, QUARTER } from '../db/log-rollup-tables.js';
import { planTimeWindow, type CubePiece, type TimePlan, type TimeRange } from './log-time-plan.js';

const inRange = (value: number, range: TimeRange) =>
  (range.from === undefined || value >= range.from) && (range.to === undefined || value < range.to);

const timeOfDay = (value: number) => ((value % DAY) + DAY) % DAY;

/** Whether a cube piece's bucket (its start) is read, as the SQL of log-rollup-read filters it. */
const reads = (piece: CubePiece, bucket: number) => {
  if (!inRange(bucket, piece.range)) return false;
  if (piece.buckets && !piece.buckets.includes(bucket)) return false;
  return piece.skipHourAt === undefined || timeOfDay(bucket) !== piece.skipHourAt;
};

/**
 * How many times the plan counts a row at `time` in each of the caller's days (keyed by the day's
 * start, shifted as the read reports it): a bucket counts for the day its start plus the piece's
 * offset falls in, a raw row for the day of its own time plus the offset.
 */
const countsOf = (plan: TimePlan, time: number, shift: number, spans: readonly number[]) => {
  const counts = new Map<number, number>();
  const add = (day: number, weight: number) => counts.set(day, (counts.get(day) ?? 0) + weight);
  for (const piece of plan.cubes) {
    if (!spans.includes(piece.span))
      throw new Error(`${piece.span}-second buckets read from a cube without them`);
    const bucket = bucketOf(time, 0, piece.span);
    if (reads(piece, bucket)) add(bucketOf(bucket + piece.offset, shift, DAY), piece.weight);
  }
  for (const piece of plan.raws)
    for (const edge of piece.edges)
      if (time >= edge.from && time < edge.to) {
        expect(bucketOf(time, 0, HOUR)).toBe(edge.hour);
        add(bucketOf(time + piece.offset, shift, DAY), piece.weight);
      }
  return [...counts].filter(([, weight]) => weight !== 0);
};

const seeded = (seed: number) => {
  let state = seed;
  return (below: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % below;
  };
};

describe('planTimeWindow', () => {
  const base = 1_764_000_000;
  const shifts = [
    0,
    8 * HOUR,
    -5 * HOUR,
    5.5 * HOUR,
    12 * HOUR,
    -12 * HOUR,
    345 * 60,
    -570 * 60,
    DAY,
    320 * 60,
  ];
  // The cubes' widths: hours only, hours and days (by_channel, by_user, by_token), and quarter hours too (by_model).
  const spanSets = [[HOUR], [HOUR, DAY], [QUARTER, HOUR, DAY], [HOUR, DAY]];

  it('counts every instant of the window once, in its caller’s day, and nothing outside it', () => {
    const random = seeded(22);
    for (let round = 0; round < 160; round += 1) {
      const shift = shifts[round % shifts.length] ?? 0;
      const spans = spanSets[round % spanSets.length] ?? [];
      const from = base + random(5 * DAY) - 2 * DAY;
      const to = from + 1 + random(round % 3 === 0 ? 2 * HOUR : 12 * DAY);
      const plan = planTimeWindow({ from, to }, shift, spans);
      const probes = [from - 1, from, to - 1, to, from + HOUR - 1];
      for (let probe = 0; probe < 400; probe += 1) probes.push(from - DAY + random(to - from + 2 * DAY));
      for (const time of probes)
        expect(countsOf(plan, time, shift, spans), `${from}–${to} shift ${shift} at ${time}`).toEqual(
          time >= from && time < to ? [[bucketOf(time, shift, DAY), 1]] : [],
        );
    }
  });

  it('counts an open end’s instants once, by UTC day', () => {
    for (const window of [{}, { from: base + 1234 }, { to: base + 5 * DAY + 77 }]) {
      const plan = planTimeWindow(window, 0);
      for (const time of [
        base - 400 * DAY,
        base,
        base + 1233,
        base + 1234,
        base + 5 * DAY + 76,
        base + 9 * DAY,
      ])
        expect(countsOf(plan, time, 0, [HOUR, DAY])).toEqual(
          inRange(time, window) ? [[bucketOf(time, 0, DAY), 1]] : [],
        );
    }
  });

  it('reads the whole days of a caller’s zone from day buckets, with at most half a day of hours moved', () => {
    const from = base - 30 * DAY + 1234;
    const to = base + 999;
    for (const shift of [8 * HOUR, -5 * HOUR, 5.5 * HOUR]) {
      const plan = planTimeWindow({ from, to }, shift);
      const hourBuckets = (piece: CubePiece) => {
        let count = 0;
        for (let bucket = bucketOf(from, 0, HOUR); bucket < to; bucket += HOUR)
          if (piece.span === HOUR && reads(piece, bucket)) count += 1;
        return count;
      };
      const hours = plan.cubes.reduce((sum, piece) => sum + hourBuckets(piece), 0);
      expect(plan.cubes.some((piece) => piece.span === DAY)).toBe(true);
      // Every hour of 30 days would be 720; the moved part is read twice (added, taken back).
      expect(hours).toBeLessThanOrEqual(2 * 12 * 30 + 2 * 24);
    }
  });

  it('reads a zone’s split hours from quarter buckets where the cube keeps them: raw rows only at the window’s ends', () => {
    const from = base - 30 * DAY + 1234;
    const to = base + 999;
    for (const shift of [5.5 * HOUR, 345 * 60, -210 * 60]) {
      const withoutQuarters = planTimeWindow({ from, to }, shift);
      const edgesOf = (plan: TimePlan) => plan.raws.flatMap((piece) => piece.edges);
      // Hours and days only: every day's split hour is read raw (twice: added, taken back).
      expect(edgesOf(withoutQuarters).length).toBeGreaterThanOrEqual(2 * 30);
      const plan = planTimeWindow({ from, to }, shift, [QUARTER, HOUR, DAY]);
      const edges = edgesOf(plan);
      expect(edges.every((edge) => edge.to - edge.from < QUARTER)).toBe(true);
      expect(edges.every((edge) => edge.from === from || edge.to === to)).toBe(true);
      const quarters = plan.cubes.filter((piece) => piece.span === QUARTER);
      expect(quarters.length).toBeGreaterThan(0);
      for (const piece of quarters)
        expect(piece.buckets?.every((bucket) => bucket % QUARTER === 0 && inRange(bucket, piece.range))).toBe(
          true,
        );
    }
  });

  it('refuses an open window grouped by shifted days, and plans nothing for an empty one', () => {
    expect(() => planTimeWindow({ from: base }, 8 * HOUR)).toThrow('bounded');
    expect(planTimeWindow({ from: base, to: base }, 0)).toEqual({ cubes: [], raws: [] });
  });
});
