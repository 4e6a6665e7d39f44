import { sql, type RawBuilder } from 'kysely';

const integerLiteral = (value: number) => {
  if (!Number.isSafeInteger(value)) throw new Error(`not a safe integer: ${value}`);
  return sql.lit(value);
};

/**
 * The start of the `width`-second bucket that holds `column + shift` (floor division, also below
 * zero), on SQLite, PostgreSQL and MySQL alike. Only `+`, `-` and `%` on integers are used, since `/`
 * differs (integer on SQLite and PostgreSQL, decimal on MySQL). Both numbers are inlined as literals so
 * that the same expression can appear in SELECT and GROUP BY (PostgreSQL compares them as text).
 */
export const bucketStart = (column: string, shift: number, width: number): RawBuilder<number> => {
  if (width <= 0) throw new Error('the bucket width must be positive');
  const size = integerLiteral(width);
  const shifted = sql`(${sql.ref(column)} + (${integerLiteral(shift)}))`;
  return sql<number>`(${shifted} - (((${shifted} % ${size}) + ${size}) % ${size}))`;
};

/** The same floor bucket in JavaScript, for the edges of a range. */
export const bucketOf = (value: number, shift: number, width: number): number => {
  const shifted = value + shift;
  return shifted - (((shifted % width) + width) % width);
};
