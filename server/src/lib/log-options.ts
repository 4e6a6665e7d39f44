import { pino, type LoggerOptions } from 'pino';

/**
 * Fields of database driver errors that carry the statement's values: mysql2 puts the SQL with its
 * values filled in on `sql`, PostgreSQL the offending row on `detail`; Kysely and the drivers keep
 * the bound values on `parameters` / `values`. Those values may be channel keys, token keys, access
 * tokens or password hashes, so they never reach the log.
 */
const VALUE_FIELDS = ['sql', 'sqlMessage', 'detail', 'parameters', 'values', 'query'] as const;

type SerializedError = ReturnType<typeof pino.stdSerializers.err>;

/** pino's error serializer, without the fields that carry a statement's values (causes included). */
export const serializeError = (error: Error): SerializedError => {
  const serialized = pino.stdSerializers.err(error);
  const strip = (value: unknown, depth: number) => {
    if (typeof value !== 'object' || value === null || depth > 5) return;
    const record = value as Record<string, unknown>;
    for (const field of VALUE_FIELDS) delete record[field];
    strip(record['cause'], depth + 1);
  };
  strip(serialized, 0);
  return serialized;
};

/** The options of every logger Sluice makes: the level, and errors without statement values. */
export const loggerOptions = (level: string): LoggerOptions => ({
  level,
  serializers: { err: serializeError },
});
