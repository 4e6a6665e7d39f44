/** Token expiry (spec §2, §5): presets and the text field's parsing. -1 means never. */

export const NEVER_EXPIRES = -1;

export type ExpiryPreset = 'never' | 'month' | 'day' | 'hour' | 'minute';

/** Preset lengths in seconds (a month is 30 days). */
export const EXPIRY_PRESETS: Readonly<Record<ExpiryPreset, number>> = {
  never: 0,
  month: 30 * 24 * 3600,
  day: 24 * 3600,
  hour: 3600,
  minute: 60,
};

const pad = (value: number) => String(value).padStart(2, '0');

/** Epoch seconds as the field's `YYYY-MM-DD HH:mm:ss` (local time); -1 as ''. */
export const expiryText = (seconds: number): string => {
  if (seconds === NEVER_EXPIRES) return '';
  const date = new Date(seconds * 1000);
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
};

/** The field text of a preset, counted from `now` (ms). */
export const presetText = (preset: ExpiryPreset, now: number = Date.now()): string =>
  preset === 'never' ? '' : expiryText(Math.floor(now / 1000) + EXPIRY_PRESETS[preset]);

/**
 * Parses the field: blank → -1 (never); `YYYY-MM-DD HH:mm[:ss]` (local) or any date the browser
 * parses → epoch seconds; anything else → undefined ('expiry time format error').
 */
export const parseExpiry = (text: string): number | undefined => {
  const value = text.trim();
  if (value === '') return NEVER_EXPIRES;
  const match = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$/.exec(value);
  const time = match
    ? new Date(
        Number(match[1]),
        Number(match[2]) - 1,
        Number(match[3]),
        Number(match[4] ?? 0),
        Number(match[5] ?? 0),
        Number(match[6] ?? 0),
      ).getTime()
    : Date.parse(value);
  return Number.isNaN(time) ? undefined : Math.floor(time / 1000);
};
