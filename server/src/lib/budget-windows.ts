/**
 * The windows of budgets: a rolling 5 hours always; a day, a week (from Monday) and a month as
 * calendar windows in BudgetTimeZone, or rolling ones (24 hours, 7 days, 30 days) per
 * BudgetWindowMode. Spending is kept per quarter hour (BUCKET_SECONDS; every time zone's offset is a
 * multiple of it, so calendar windows start on a bucket's start). A rolling window counts the whole
 * quarter hour its start falls in: spending leaves it between its length and a quarter hour later,
 * never before (a budget is never overshot by the rounding).
 */
import { BUDGET_WINDOWS, type BudgetWindow } from '@sluice/contract/schemas/limits';

export { BUDGET_WINDOWS, type BudgetWindow };

export const BUCKET_SECONDS = 900;

export interface WindowSpan {
  /** The first bucket counted, Unix seconds. */
  readonly start: number;
  /** When a calendar window starts over, Unix seconds (undefined: rolling). */
  readonly resetsAt: number | undefined;
}

export type WindowSpans = Readonly<Record<BudgetWindow, WindowSpan>>;

const HOUR = 3600;
const ROLLING: Readonly<Record<BudgetWindow, number>> = {
  '5h': 5 * HOUR,
  daily: 24 * HOUR,
  weekly: 7 * 24 * HOUR,
  monthly: 30 * 24 * HOUR,
};

export const bucketOf = (seconds: number): number => Math.floor(seconds / BUCKET_SECONDS) * BUCKET_SECONDS;

const formats = new Map<string, Intl.DateTimeFormat>();
const formatOf = (timeZone: string): Intl.DateTimeFormat => {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    });
    formats.set(timeZone, format);
  }
  return format;
};

const WEEKDAYS: Readonly<Record<string, number>> = { Mon: 0, Tue: 1, Wed: 2, Thu: 3, Fri: 4, Sat: 5, Sun: 6 };

interface LocalTime {
  readonly year: number;
  /** 0-11 */
  readonly month: number;
  readonly day: number;
  /** Monday 0 … Sunday 6. */
  readonly weekday: number;
  /** The wall clock as if it were UTC, ms. */
  readonly wall: number;
}

const localTime = (ms: number, timeZone: string): LocalTime => {
  const parts: Record<string, string> = {};
  for (const part of formatOf(timeZone).formatToParts(ms)) parts[part.type] = part.value;
  const year = Number(parts['year']);
  const month = Number(parts['month']) - 1;
  const day = Number(parts['day']);
  const wall = Date.UTC(
    year,
    month,
    day,
    Number(parts['hour']),
    Number(parts['minute']),
    Number(parts['second']),
  );
  return { year, month, day, weekday: WEEKDAYS[parts['weekday'] ?? 'Mon'] ?? 0, wall };
};

/** The instant (Unix seconds) the wall clock of `timeZone` reads midnight of year/month/day. */
const midnight = (year: number, month: number, day: number, timeZone: string): number => {
  const wall = Date.UTC(year, month, day);
  let instant = wall;
  // Twice: the offset at the first guess may differ from the offset at midnight (a DST change).
  for (let step = 0; step < 2; step += 1) instant = wall - (localTime(instant, timeZone).wall - instant);
  return Math.floor(instant / 1000);
};

/** The windows at `nowMs` (each start a bucket's start). */
export const windowSpans = (nowMs: number, mode: string, timeZone: string): WindowSpans => {
  const now = Math.floor(nowMs / 1000);
  const rolling = (window: BudgetWindow): WindowSpan => ({
    start: bucketOf(now - ROLLING[window]),
    resetsAt: undefined,
  });
  if (mode === 'rolling')
    return {
      '5h': rolling('5h'),
      daily: rolling('daily'),
      weekly: rolling('weekly'),
      monthly: rolling('monthly'),
    };
  const local = localTime(nowMs, timeZone);
  const { year, month, day } = local;
  const calendar = (start: number, next: number): WindowSpan => ({ start: bucketOf(start), resetsAt: next });
  return {
    '5h': rolling('5h'),
    daily: calendar(midnight(year, month, day, timeZone), midnight(year, month, day + 1, timeZone)),
    weekly: calendar(
      midnight(year, month, day - local.weekday, timeZone),
      midnight(year, month, day - local.weekday + 7, timeZone),
    ),
    monthly: calendar(midnight(year, month, 1, timeZone), midnight(year, month + 1, 1, timeZone)),
  };
};

/**
 * When spending counted now in a rolling window leaves it: its oldest counted bucket's end plus the
 * window's length (Unix seconds).
 */
export const rollingReleaseAt = (window: BudgetWindow, oldestBucket: number): number =>
  oldestBucket + BUCKET_SECONDS + ROLLING[window];
