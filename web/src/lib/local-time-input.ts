const pad = (value: number) => String(value).padStart(2, '0');

/** Epoch seconds as a `datetime-local` value (local time); 0 as ''. */
export const toLocalInput = (seconds: number): string => {
  if (seconds <= 0) return '';
  const date = new Date(seconds * 1000);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
};

/** A `datetime-local` value as epoch seconds; '' or unparsable as 0 (not set). */
export const fromLocalInput = (value: string): number => {
  const time = new Date(value).getTime();
  return value === '' || Number.isNaN(time) ? 0 : Math.floor(time / 1000);
};
