import { DAY, HOUR } from '../db/log-rollup-tables.js';

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
 * How a time window is read: whole UTC days from the day buckets, whole hours from the hour
 * buckets, and what is left (under an hour at each end) from the raw rows of that hour.
 */
export interface TimePlan {
  readonly days?: TimeRange;
  readonly hours: readonly TimeRange[];
  /** Hour buckets starting at this time of day (seconds after UTC midnight) are read raw instead. */
  readonly skipHourAt?: number;
  readonly edges: readonly TimeEdge[];
}

const floorTo = (value: number, width: number) => value - (((value % width) + width) % width);
const ceilTo = (value: number, width: number) => -floorTo(-value, width);

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

/** The caller's midnights inside `(from, to)` (UTC instants), for a shift of `shift` seconds. */
const midnightsIn = (from: number, to: number, shift: number): number[] => {
  const midnights: number[] = [];
  for (let midnight = ceilTo(from + shift, DAY) - shift; midnight < to; midnight += DAY)
    if (midnight > from) midnights.push(midnight);
  return midnights;
};

/** A bounded stretch without whole UTC days: hours, and raw rows at the ends (and at cut hours). */
const planHours = (
  from: number,
  to: number,
  shift: number | undefined,
): { hours: TimeRange[]; edges: TimeEdge[] } => {
  const cuts = shift === undefined || shift % HOUR === 0 ? [] : midnightsIn(from, to, shift);
  const first = ceilTo(from, HOUR);
  const last = floorTo(to, HOUR);
  if (first >= last) {
    // Inside one hour, or across one hour boundary: raw rows only.
    const split = first === last && first > from && first < to ? [first] : [];
    return {
      hours: [],
      edges: edgesOf(
        from,
        to,
        [...split, ...cuts].sort((a, b) => a - b),
      ),
    };
  }
  const edges: TimeEdge[] = [];
  if (from < first) edges.push(...edgesOf(from, first, cuts));
  // An hour holding a caller's midnight (a zone not in whole hours) is read raw, split at it.
  for (const cut of cuts)
    if (cut >= first && cut < last)
      edges.push(...edgesOf(floorTo(cut, HOUR), floorTo(cut, HOUR) + HOUR, [cut]));
  if (last < to) edges.push(...edgesOf(last, to, cuts));
  return { hours: [{ from: first, to: last }], edges };
};

/** The time of day (UTC) of the hour holding the caller's midnight, for a shift not in whole hours. */
const cutHourOf = (shift: number | undefined): number | undefined =>
  shift === undefined || shift % HOUR === 0 ? undefined : floorTo(((-shift % DAY) + DAY) % DAY, HOUR);

/**
 * The plan for the window `[from, to)` (either end may be open). `shift` (seconds east of UTC) is
 * set when the rows are grouped by the caller's days: day buckets then serve only a shift of whole
 * days, hour buckets a shift of whole hours; otherwise the hours holding a caller's midnight are
 * read raw. An open end needs day buckets (no shift), as a statistic's window has.
 */
export const planTimeWindow = (window: TimeRange, shift?: number): TimePlan => {
  const { from, to } = window;
  if (from !== undefined && to !== undefined && from >= to) return { hours: [], edges: [] };
  if (shift !== undefined && shift % DAY !== 0) {
    if (from === undefined || to === undefined)
      throw new Error('a window grouped by shifted days must be bounded');
    const skipHourAt = cutHourOf(shift);
    return { ...planHours(from, to, shift), ...(skipHourAt === undefined ? {} : { skipHourAt }) };
  }
  const firstDay = from === undefined ? undefined : ceilTo(from, DAY);
  const lastDay = to === undefined ? undefined : floorTo(to, DAY);
  if (
    from !== undefined &&
    to !== undefined &&
    firstDay !== undefined &&
    lastDay !== undefined &&
    firstDay >= lastDay
  )
    return planHours(from, to, undefined);
  const hours: TimeRange[] = [];
  const edges: TimeEdge[] = [];
  for (const [start, end] of [
    [from, firstDay],
    [lastDay, to],
  ] as const) {
    if (start === undefined || end === undefined || start >= end) continue;
    const stretch = planHours(start, end, undefined);
    hours.push(...stretch.hours);
    edges.push(...stretch.edges);
  }
  return {
    days: {
      ...(firstDay === undefined ? {} : { from: firstDay }),
      ...(lastDay === undefined ? {} : { to: lastDay }),
    },
    hours,
    edges,
  };
};
