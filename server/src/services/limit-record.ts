import { LIMIT_FIELDS, type LimitValues } from '@sluice/contract/schemas/limits';

/** A row's limits and budgets as the wire has them (null when unset; a stored 0 or less is unset too). */
export const limitValuesOf = (
  row: Readonly<Record<(typeof LIMIT_FIELDS)[number], number | null>>,
): LimitValues => {
  const values: Record<string, number | null> = {};
  for (const field of LIMIT_FIELDS) {
    const value = row[field];
    values[field] = value === null || value === undefined || Number(value) <= 0 ? null : Number(value);
  }
  return values as LimitValues;
};

/** The limit fields an update body carries (absent ones left out: unchanged). */
export const limitChangesOf = (
  input: Partial<Record<(typeof LIMIT_FIELDS)[number], number | null | undefined>>,
): Partial<Record<(typeof LIMIT_FIELDS)[number], number | null>> => {
  const changes: Partial<Record<(typeof LIMIT_FIELDS)[number], number | null>> = {};
  for (const field of LIMIT_FIELDS) {
    const value = input[field];
    if (value !== undefined) changes[field] = value;
  }
  return changes;
};
