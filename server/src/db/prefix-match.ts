import { sql, type RawBuilder } from 'kysely';

/**
 * `column LIKE 'keyword%'` with `%`, `_` and the escape character taken literally (one-api's search
 * is a prefix match; ours treats wildcards and quotes in the keyword as plain characters).
 */
export const prefixMatch = (column: string, keyword: string): RawBuilder<boolean> => {
  const pattern = `${keyword.replace(/[!%_]/g, (char) => `!${char}`)}%`;
  return sql<boolean>`${sql.ref(column)} LIKE ${pattern} ESCAPE '!'`;
};
