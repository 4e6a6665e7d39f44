import { ITEMS_PER_PAGE } from '@sluice/contract/statuses';
import { useInfiniteQuery, type QueryKey } from '@tanstack/react-query';

export interface PagedListOptions<T> {
  /** Identifies the list and its filters: a new key starts again from page 0. */
  readonly queryKey: QueryKey;
  /** Loads page `page` (from 0). */
  readonly fetchPage: (page: number) => Promise<T[]>;
  readonly enabled?: boolean;
}

/**
 * A list loaded page by page from 0 (spec §9): the next page exists while the last one was full
 * (the server sends no total). Errors go to the one error handler through the query cache.
 */
export const usePagedList = <T>({ queryKey, fetchPage, enabled = true }: PagedListOptions<T>) => {
  const query = useInfiniteQuery({
    queryKey,
    enabled,
    initialPageParam: 0,
    queryFn: ({ pageParam }) => fetchPage(pageParam),
    getNextPageParam: (last, _pages, page) => (last.length >= ITEMS_PER_PAGE ? page + 1 : undefined),
  });
  const items = query.data?.pages.flat() ?? [];
  return {
    items,
    loading: query.isPending && enabled,
    refreshing: query.isFetching,
    hasMore: query.hasNextPage,
    loadingMore: query.isFetchingNextPage,
    loadMore: () => void query.fetchNextPage(),
    refresh: () => void query.refetch(),
  };
};
