import { ITEMS_PER_PAGE } from '@sluice/contract/statuses';

/** Page index from 0 (negative → 0) to a row offset of the console's page size. */
export const pageOffset = (page: number): number => Math.max(0, Math.floor(page)) * ITEMS_PER_PAGE;

export { ITEMS_PER_PAGE };
