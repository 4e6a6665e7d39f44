import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The signature of a webhook delivery: HMAC-SHA256 with the webhook's secret over
 * `<timestamp>.<raw body>`, as `sha256=<hex>`. The timestamp (Unix seconds, sent in
 * X-Sluice-Timestamp) is part of the signed text, so a receiver that refuses old timestamps
 * refuses a replayed delivery (docs/alerts.md).
 */
export const signAlert = (secret: string, timestamp: number, body: string): string =>
  `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;

/** What a receiver does: the signature matches and the timestamp is within `toleranceSeconds` of now. */
export const verifyAlert = (
  secret: string,
  timestamp: string,
  body: string,
  signature: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean => {
  const sent = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - sent) > toleranceSeconds) return false;
  const expected = Buffer.from(signAlert(secret, sent, body));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
};
