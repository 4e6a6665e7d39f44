import { ITEMS_PER_PAGE } from '@sluice/contract/statuses';
import { sqlNumber } from '../db/sql-number.js';

/** Page index from 0 (negative → 0) to a row offset, for pages of `size` rows (the console's 10 by default). */
export const pageOffset = (page: number, size: number = ITEMS_PER_PAGE): number =>
  Math.max(0, Math.floor(page)) * size;

export { ITEMS_PER_PAGE };

/** The `count` of a `select count(*) as count` row (a string or BigInt on some drivers). */
export const countOf = (row: { readonly count: unknown } | undefined): number => sqlNumber(row?.count);
