import { DEFAULT_PAGE_SIZE } from '@sluice/contract/schemas/common';
import { ITEMS_PER_PAGE } from '@sluice/contract/statuses';
import { keepPreviousData, useInfiniteQuery, useQuery, type QueryKey } from '@tanstack/react-query';
import { useState } from 'react';
import type { Page } from './api-client.js';

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

/**
 * A list shown one page at a time (the pager of spec §2): page `page` (from 0) of `size` rows and
 * the total. A new query key (another order) starts again at page 0, and a page left empty by a
 * deletion shows the last page instead. The previous page stays on screen while the next loads.
 */
export const usePagedTable = <T>({
  queryKey,
  fetchPage,
  enabled = true,
}: {
  readonly queryKey: QueryKey;
  readonly fetchPage: (page: number, size: number) => Promise<Page<T>>;
  readonly enabled?: boolean;
}) => {
  const keyText = JSON.stringify(queryKey);
  const [state, setState] = useState({ key: keyText, page: 0, size: DEFAULT_PAGE_SIZE });
  const requested = state.key === keyText ? state.page : 0;
  const { size } = state;
  const query = useQuery({
    queryKey: [...queryKey, { page: requested, size }],
    queryFn: () => fetchPage(requested, size),
    enabled,
    placeholderData: keepPreviousData,
  });
  const total = query.data?.total ?? 0;
  const pageCount = Math.max(1, Math.ceil(total / size));
  const page = query.data && !query.isPlaceholderData ? Math.min(requested, pageCount - 1) : requested;
  if (page !== requested) setState({ key: keyText, page, size });
  return {
    items: query.data?.items ?? [],
    total,
    page,
    pageCount,
    size,
    loading: query.isPending && enabled,
    refreshing: query.isFetching,
    setPage: (next: number) => setState({ key: keyText, page: next, size }),
    /** A new page size starts again at page 0. */
    setSize: (next: number) => setState({ key: keyText, page: 0, size: next }),
    refresh: () => void query.refetch(),
  };
};

export interface SearchableListOptions<T> {
  /** Identifies the paged list and its filters. */
  readonly queryKey: QueryKey;
  readonly fetchPage: (page: number, size: number) => Promise<Page<T>>;
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
  const paged = usePagedTable({ queryKey, fetchPage, enabled: !searching });
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
