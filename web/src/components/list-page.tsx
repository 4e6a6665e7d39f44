import { Group, Stack } from '@mantine/core';
import type { ReactNode } from 'react';
import type { SearchableList } from '../lib/use-paged-list.js';
import { AddLink, RefreshButton } from './list-buttons.js';
import { ListRows, type ListColumn, type RowAttributes } from './list-rows.js';
import { ListState } from './list-state.js';
import { PageCard } from './page-card.js';
import { Pager } from './pager.js';
import { SearchBar } from './search-bar.js';

export interface ListPageProps<T extends { readonly id: number }> {
  readonly title: string;
  /** The card's test id. */
  readonly testId: string;
  /** The link to the creation form, first of the actions. */
  readonly add: { readonly to: string; readonly testId: string; readonly label: string };
  /** More actions, between the add link and the refresh button. */
  readonly actions?: ReactNode;
  /** What the refresh button does; by default the list reloads. */
  readonly onRefresh?: () => void;
  /** Shown above the search box: a hint, a prompt, a progress bar. */
  readonly intro?: ReactNode;
  /** The list and its search (`useSearchableList`). */
  readonly list: SearchableList<T>;
  readonly searchPlaceholder: string;
  /** Beside the search box: the order box, if the list has one. */
  readonly order?: ReactNode;
  /** The rows shown; by default the list's items. */
  readonly items?: readonly T[];
  readonly emptyText: string;
  /** The columns before the actions (a table on a desktop, a card per row on a phone). */
  readonly columns: readonly ListColumn<T>[];
  /** A row's actions. */
  readonly rowActions: (item: T) => ReactNode;
  /** A row's `data-*` attributes (its test id first). */
  readonly attributes: (item: T) => RowAttributes;
}

/**
 * The console's list screen (tokens, users, channels, redemption codes): a card with the add link,
 * the screen's own actions and refresh; a search box (with an order box beside it); the rows (a
 * table, or cards on a phone), their loading and empty states, and the pager (total, pages, page
 * size) while no search is shown.
 */
export const ListPage = <T extends { readonly id: number }>({
  title,
  testId,
  add,
  actions,
  onRefresh,
  intro,
  list,
  searchPlaceholder,
  order,
  items = list.items,
  emptyText,
  columns,
  rowActions,
  attributes,
}: ListPageProps<T>) => {
  const search = (
    <SearchBar
      value={list.searchText}
      onChange={list.setSearchText}
      onSearch={list.setKeyword}
      placeholder={searchPlaceholder}
      loading={list.searchFetching}
    />
  );
  return (
    <PageCard
      title={title}
      testId={testId}
      actions={
        <>
          <AddLink to={add.to} testId={add.testId}>
            {add.label}
          </AddLink>
          {actions}
          <RefreshButton loading={list.refreshing} onClick={() => (onRefresh ?? list.refresh)()} />
        </>
      }
    >
      {intro}
      {order === undefined ? (
        search
      ) : (
        <Group grow preventGrowOverflow={false} wrap="wrap" gap="sm">
          {search}
          {order}
        </Group>
      )}
      <ListState loading={list.loading} empty={items.length === 0} emptyText={emptyText}>
        <Stack gap="sm">
          <ListRows items={items} columns={columns} actions={rowActions} attributes={attributes} />
          {!list.searching && (
            <Pager
              total={list.total}
              page={list.page}
              pageCount={list.pageCount}
              size={list.size}
              onPage={list.setPage}
              onSize={list.setSize}
            />
          )}
        </Stack>
      </ListState>
    </PageCard>
  );
};
