import { DAY, HOUR, QUARTER } from '../db/log-rollup-tables.js';

/** Half-open `[from, to)` in Unix seconds; a missing end is unbounded. */
export interface TimeRange {
  readonly from?: number;
  readonly to?: number;
}

/** Raw rows `[from, to)`, all inside the hour starting at `hour`. */
export interface TimeEdge {
  readonly hour: number;
  readonly from: number;
  readonly to: number;
}

/**
 * A piece of the answer and which of the caller's days it counts for: each row's time plus `offset`
 * cut into the caller's days; `weight` -1 takes it back (a correction).
 */
interface Counted {
  readonly offset: number;
  readonly weight: 1 | -1;
}

/** Buckets of one width over a range: all of them, all but one hour of each day, or the ones listed. */
export interface CubePiece extends Counted {
  readonly span: number;
  readonly range: TimeRange;
  /** The hour buckets starting at this time of day (seconds after UTC midnight) are left out. */
  readonly skipHourAt?: number;
  /**
   * Only these buckets (inside `range`): a read looks each up in the index instead of walking the
   * range and filtering by time of day, so that it reads only the hours it keeps.
   */
  readonly buckets?: readonly number[];
}

/** Raw rows of some partial hours. */
export interface RawPiece extends Counted {
  readonly edges: readonly TimeEdge[];
}

/**
 * How a window is read: whole UTC days from the day buckets, whole hours from the hour buckets, and
 * what is left (under an hour at each end) from the raw rows of that hour.
 */
export interface TimePlan {
  readonly cubes: readonly CubePiece[];
  readonly raws: readonly RawPiece[];
}

const floorTo = (value: number, width: number) => value - (((value % width) + width) % width);
const ceilTo = (value: number, width: number) => -floorTo(-value, width);
const plain = { offset: 0, weight: 1 } as const;

/** Splits `[from, to)` (inside one hour) at the given instants. */
const edgesOf = (from: number, to: number, cuts: readonly number[]): TimeEdge[] => {
  const points = [from, ...cuts.filter((cut) => cut > from && cut < to), to];
  const edges: TimeEdge[] = [];
  for (let index = 1; index < points.length; index += 1) {
    const start = points[index - 1] ?? from;
    const end = points[index] ?? to;
    edges.push({ hour: floorTo(start, HOUR), from: start, to: end });
  }
  return edges;
};

/** UTC time of day of the caller's midnight, for a shift of `shift` seconds east of UTC. */
const midnightOf = (shift: number) => ((-shift % DAY) + DAY) % DAY;

/** The caller's midnights inside `(from, to)`, when they do not fall on whole hours. */
const cutsIn = (from: number | undefined, to: number | undefined, shift: number | undefined): number[] => {
  if (shift === undefined || shift % HOUR === 0 || from === undefined || to === undefined) return [];
  const cuts: number[] = [];
  for (let midnight = floorTo(from, DAY) + midnightOf(shift); midnight < to; midnight += DAY)
    if (midnight > from) cuts.push(midnight);
  return cuts;
};

/** A stretch read by the hour: hour buckets, raw rows at its ends and in the hours holding a cut. */
const planHours = (from: number | undefined, to: number | undefined, shift: number | undefined): TimePlan => {
  const cuts = cutsIn(from, to, shift);
  const first = from === undefined ? undefined : ceilTo(from, HOUR);
  const last = to === undefined ? undefined : floorTo(to, HOUR);
  if (from !== undefined && to !== undefined && first !== undefined && last !== undefined && first >= last) {
    // Inside one hour, or across one hour boundary: raw rows only.
    const split = first === last && first > from && first < to ? [first] : [];
    return {
      cubes: [],
      raws: [
        {
          ...plain,
          edges: edgesOf(
            from,
            to,
            [...split, ...cuts].sort((a, b) => a - b),
          ),
        },
      ],
    };
  }
  const edges: TimeEdge[] = [];
  if (from !== undefined && first !== undefined && from < first) edges.push(...edgesOf(from, first, cuts));
  // An hour holding a caller's midnight (a zone not in whole hours) is read raw, split at it.
  for (const cut of cuts)
    if ((first === undefined || cut >= first) && (last === undefined || cut < last))
      edges.push(...edgesOf(floorTo(cut, HOUR), floorTo(cut, HOUR) + HOUR, [cut]));
  if (to !== undefined && last !== undefined && last < to) edges.push(...edgesOf(last, to, cuts));
  const cutHour = shift === undefined || shift % HOUR === 0 ? undefined : floorTo(midnightOf(shift), HOUR);
  const range = {
    ...(first === undefined ? {} : { from: first }),
    ...(last === undefined ? {} : { to: last }),
  };
  return {
    cubes: [
      {
        ...plain,
        span: HOUR,
        range,
        ...(cutHour === undefined ? {} : { skipHourAt: cutHour }),
      },
    ],
    raws: edges.length > 0 ? [{ ...plain, edges }] : [],
  };
};

/**
 * Day buckets for the caller's days (a shift not of whole days): a UTC day straddles two of them,
 * so all of it counts for the one holding the larger part, and the smaller part (at most 12 hours:
 * hour buckets, and raw rows of the hour holding the midnight) is moved to the other: added where it
 * belongs, taken back where its day put it.
 */
const shiftedDays = (days: TimeRange & { from: number; to: number }, shift: number): TimePlan => {
  const midnight = midnightOf(shift);
  const later = midnight <= DAY / 2;
  // The part to move: the head [0, midnight) of each UTC day, or its tail [midnight, DAY).
  const [start, end] = later ? [0, midnight] : [midnight, DAY];
  const hours = { from: ceilTo(start, HOUR), to: floorTo(end, HOUR) };
  const moved = later ? DAY : -DAY;
  const buckets: number[] = [];
  for (let day = days.from; day < days.to; day += DAY)
    for (let hour = day + hours.from; hour < day + hours.to; hour += HOUR) buckets.push(hour);
  const edges: TimeEdge[] = [];
  if (midnight % HOUR !== 0)
    for (let day = days.from; day < days.to; day += DAY) {
      const partial = later ? [floorTo(midnight, HOUR), midnight] : [midnight, ceilTo(midnight, HOUR)];
      edges.push({
        hour: day + floorTo(midnight, HOUR),
        from: day + (partial[0] ?? 0),
        to: day + (partial[1] ?? 0),
      });
    }
  const cubes: CubePiece[] = [{ offset: later ? DAY - 1 : 0, weight: 1, span: DAY, range: days }];
  const raws: RawPiece[] = [];
  for (const [weight, offset] of [
    [1, 0],
    [-1, moved],
  ] as const) {
    if (buckets.length > 0) cubes.push({ offset, weight, span: HOUR, range: days, buckets });
    if (edges.length > 0) raws.push({ offset, weight, edges });
  }
  return { cubes, raws };
};

const join = (...plans: TimePlan[]): TimePlan => ({
  cubes: plans.flatMap((plan) => plan.cubes),
  raws: plans.flatMap((plan) => plan.raws),
});

/**
 * The raw edges as quarter-hour buckets where they cover whole quarters of an hour that has them (a
 * cube that keeps them, an hour from `quartersFrom` on): an hour split at a caller's midnight (a zone
 * not in whole hours) is whole quarters on both sides of it, and a window's ends leave under a
 * quarter hour each to the raw rows.
 */
const withQuarters = (plan: TimePlan, quartersFrom: number): TimePlan => {
  const cubes = [...plan.cubes];
  const raws: RawPiece[] = [];
  for (const piece of plan.raws) {
    const buckets: number[] = [];
    const edges: TimeEdge[] = [];
    for (const edge of piece.edges) {
      const first = ceilTo(edge.from, QUARTER);
      const last = floorTo(edge.to, QUARTER);
      if (first >= last || edge.hour < quartersFrom) {
        edges.push(edge);
        continue;
      }
      if (edge.from < first) edges.push({ hour: edge.hour, from: edge.from, to: first });
      for (let quarter = first; quarter < last; quarter += QUARTER) buckets.push(quarter);
      if (last < edge.to) edges.push({ hour: edge.hour, from: last, to: edge.to });
    }
    const { offset, weight } = piece;
    if (buckets.length > 0) {
      const range = { from: Math.min(...buckets), to: Math.max(...buckets) + QUARTER };
      cubes.push({ offset, weight, span: QUARTER, range, buckets });
    }
    if (edges.length > 0) raws.push({ offset, weight, edges });
  }
  return { cubes, raws };
};

/**
 * The plan for the window `[from, to)` (either end may be open). `shift` (seconds east of UTC) is
 * set when the rows are grouped by the caller's days. Whole UTC days come from day buckets when the
 * cube has them (`spans`), shifted to the caller's days as `shiftedDays` tells; the rest from hour
 * buckets, quarter-hour buckets when it has them (for the hours from `quartersFrom` on), and raw
 * rows. A window grouped by shifted days must be bounded.
 */
export const planTimeWindow = (
  window: TimeRange,
  shift?: number,
  spans: readonly number[] = [HOUR, DAY],
  quartersFrom = 0,
): TimePlan => {
  const plan = planWithDays(window, shift, spans.includes(DAY));
  return spans.includes(QUARTER) ? withQuarters(plan, quartersFrom) : plan;
};

const planWithDays = (window: TimeRange, shift: number | undefined, useDays: boolean): TimePlan => {
  const { from, to } = window;
  if (from !== undefined && to !== undefined && from >= to) return { cubes: [], raws: [] };
  const shifted = shift !== undefined && shift % DAY !== 0;
  if (shifted && (from === undefined || to === undefined))
    throw new Error('a window grouped by shifted days must be bounded');
  const firstDay = from === undefined ? undefined : ceilTo(from, DAY);
  const lastDay = to === undefined ? undefined : floorTo(to, DAY);
  if (!useDays || (firstDay !== undefined && lastDay !== undefined && firstDay >= lastDay))
    return planHours(from, to, shift);
  const ends = join(
    ...(from !== undefined && firstDay !== undefined && from < firstDay
      ? [planHours(from, firstDay, shift)]
      : []),
    ...(to !== undefined && lastDay !== undefined && lastDay < to ? [planHours(lastDay, to, shift)] : []),
  );
  if (shifted && firstDay !== undefined && lastDay !== undefined)
    return join(shiftedDays({ from: firstDay, to: lastDay }, shift), ends);
  const days = {
    ...(firstDay === undefined ? {} : { from: firstDay }),
    ...(lastDay === undefined ? {} : { to: lastDay }),
  };
  return join({ cubes: [{ ...plain, span: DAY, range: days }], raws: [] }, ends);
};
