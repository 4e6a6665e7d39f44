/**
 * The row of a table keyed by one of the contract's tables (statuses, roles, log types) for a number
 * read from the API: undefined when the number is none of the table's keys (an unknown status).
 */
export const entryOf = <K extends number, V>(table: Readonly<Record<K, V>>, key: number): V | undefined =>
  Object.hasOwn(table, key) ? table[key as K] : undefined;
