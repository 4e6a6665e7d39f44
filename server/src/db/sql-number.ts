/**
 * A number from an aggregate (SUM, COUNT): PostgreSQL and MySQL may answer numeric/decimal/bigint as
 * strings or BigInt, and SUM over no rows is NULL. Anything unreadable is 0.
 */
export const sqlNumber = (value: unknown): number => {
  if (typeof value === 'number') return Number.isFinite(value) ? value : 0;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string' && value.trim() !== '') {
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : 0;
  }
  return 0;
};
