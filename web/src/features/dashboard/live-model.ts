import type { LiveMinute } from '@sluice/contract/schemas/live-dashboard';

/** A minute's label on the chart's axis: its local HH:mm. */
export const minuteLabel = (minute: number): string => {
  const date = new Date(minute * 1000);
  return `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
};

/** The chart's rows: one per minute, labelled. */
export const liveChartRows = (minutes: readonly LiveMinute[]) =>
  minutes.map((minute) => ({
    label: minuteLabel(minute.minute),
    requests: minute.requests,
    tokens: minute.tokens,
  }));

/** A rate (0–1) as a percentage with one decimal; a dash when there is none. */
export const percent = (rate: number | null): string => (rate === null ? '–' : `${(rate * 100).toFixed(1)}%`);

/** The hour's totals of the minutes. */
export const hourTotals = (minutes: readonly LiveMinute[]) =>
  minutes.reduce(
    (sum, minute) => ({ requests: sum.requests + minute.requests, tokens: sum.tokens + minute.tokens }),
    { requests: 0, tokens: 0 },
  );
