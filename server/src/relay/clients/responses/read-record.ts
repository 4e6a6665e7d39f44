/**
 * Plain reads of JSON the relay already holds (the client's body once it passed `toHub`, the hub's
 * answers and chunks): no zod on the hot path, just the checks of a value's type.
 */
export type JsonRecord = Readonly<Record<string, unknown>>;

/** The value as an object, or undefined when it is not a (non-array) object. */
export const readRecord = (value: unknown): JsonRecord | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonRecord) : undefined;

/** The value when it is a string, else undefined. */
export const readString = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;

/** The value when it is a finite number, else undefined. */
export const readNumber = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;
