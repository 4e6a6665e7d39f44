/** Current Unix time in whole seconds. */
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

let stampSecond = Number.NaN;
let stampText = '';

/** `yyyyMMddHHmmss` in local time, worked out once a second (every request asks for it). */
const stampOf = (time: number, given: Date | undefined): string => {
  const second = Math.floor(time / 1000);
  if (second !== stampSecond) {
    const date = given ?? new Date(time);
    stampText =
      pad(date.getFullYear(), 4) +
      pad(date.getMonth() + 1) +
      pad(date.getDate()) +
      pad(date.getHours()) +
      pad(date.getMinutes()) +
      pad(date.getSeconds());
    stampSecond = second;
  }
  return stampText;
};

/**
 * one-api's request id: local `yyyyMMddHHmmss`, then nanoseconds mod 1e9, then 8 random digits.
 */
export const createRequestId = (date?: Date, random = Math.random): string => {
  const time = date ? date.getTime() : Date.now();
  const millis = ((time % 1000) + 1000) % 1000;
  const nanos = pad((millis * 1_000_000 + Math.floor(random() * 1_000_000)) % 1_000_000_000, 9);
  const digits = pad(Math.floor(random() * 100_000_000), 8);
  return stampOf(time, date) + nanos + digits;
};
