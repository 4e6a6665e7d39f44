/** Current Unix time in whole seconds. */
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/**
 * one-api's request id: local `yyyyMMddHHmmss`, then nanoseconds mod 1e9, then 8 random digits.
 */
export const createRequestId = (date = new Date(), random = Math.random): string => {
  const stamp =
    pad(date.getFullYear(), 4) +
    pad(date.getMonth() + 1) +
    pad(date.getDate()) +
    pad(date.getHours()) +
    pad(date.getMinutes()) +
    pad(date.getSeconds());
  const nanos = pad(
    (date.getMilliseconds() * 1_000_000 + Math.floor(random() * 1_000_000)) % 1_000_000_000,
    9,
  );
  const digits = pad(Math.floor(random() * 100_000_000), 8);
  return stamp + nanos + digits;
};
