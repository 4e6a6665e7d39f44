import { ITEMS_PER_PAGE } from '@sluice/contract/statuses';
import { useInfiniteQuery, useQuery, type QueryKey } from '@tanstack/react-query';
import { useState } from 'react';

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

export interface SearchableListOptions<T> {
  /** Identifies the paged list and its filters. */
  readonly queryKey: QueryKey;
  readonly fetchPage: (page: number) => Promise<T[]>;
  /** Identifies the search results; the keyword is appended. */
  readonly searchKey: QueryKey;
  readonly search: (keyword: string) => Promise<T[]>;
}

/**
 * A paged list that shows search results instead while a keyword is set (the console's list screens):
 * one set of items, loading and refresh for whichever is shown, and the text of the search box (the
 * keyword is the text submitted).
 */
export const useSearchableList = <T>({
  queryKey,
  fetchPage,
  searchKey,
  search,
}: SearchableListOptions<T>) => {
  const [searchText, setSearchText] = useState('');
  const [keyword, setKeyword] = useState('');
  const searching = keyword !== '';
  const paged = usePagedList({ queryKey, fetchPage, enabled: !searching });
  const found = useQuery({
    queryKey: [...searchKey, keyword],
    queryFn: () => search(keyword),
    enabled: searching,
  });
  return {
    ...paged,
    /** The text in the search box (a row that cannot copy its key puts the key there). */
    searchText,
    setSearchText,
    keyword,
    setKeyword,
    searching,
    items: searching ? (found.data ?? []) : paged.items,
    loading: searching ? found.isPending : paged.loading,
    refreshing: searching ? found.isFetching : paged.refreshing,
    /** The search itself is running (for the search box's spinner). */
    searchFetching: searching && found.isFetching,
    refresh: () => (searching ? void found.refetch() : paged.refresh()),
  };
};

export type SearchableList<T> = ReturnType<typeof useSearchableList<T>>;
