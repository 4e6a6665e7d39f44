import { Badge, Stack, Table } from '@mantine/core';
import type { Redemption } from '@sluice/contract/schemas/redemption';
import { REDEMPTION_STATUS } from '@sluice/contract/statuses';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AddLink, RefreshButton } from '../../components/list-buttons.js';
import { ListState } from '../../components/list-state.js';
import { LoadMore } from '../../components/load-more.js';
import { PageCard } from '../../components/page-card.js';
import { ResponsiveTable } from '../../components/responsive-table.js';
import { SearchBar } from '../../components/search-bar.js';
import { entryOf } from '../../lib/entry-of.js';
import { formatTimestamp, useQuotaFormatter } from '../../lib/format.js';
import { useSearchableList } from '../../lib/use-paged-list.js';
import { RedemptionActions } from './redemption-actions.js';
import { listRedemptions, searchRedemptions } from './redemption-api.js';

type RedemptionStatusName = keyof typeof REDEMPTION_STATUS;

/** Redemption status labels and colours (spec §4), one row per status of the contract. */
const STATUS: Readonly<
  Record<(typeof REDEMPTION_STATUS)[RedemptionStatusName], { key: RedemptionStatusName; color: string }>
> = {
  [REDEMPTION_STATUS.unused]: { key: 'unused', color: 'teal' },
  [REDEMPTION_STATUS.disabled]: { key: 'disabled', color: 'red' },
  [REDEMPTION_STATUS.used]: { key: 'used', color: 'gray' },
};

const RedemptionStatus = ({ status }: { status: number }) => {
  const { t } = useTranslation();
  const entry = entryOf(STATUS, status);
  return (
    <Badge color={entry?.color ?? 'dark'} variant="light" data-testid="redemption-status">
      {entry ? t(`redemption.status.${entry.key}`) : t('common.unknownStatus')}
    </Badge>
  );
};

/** Redemption codes (spec §2, admin): search, load more from page 0, copy, toggle, edit, delete. */
export const RedemptionListPage = () => {
  const { t } = useTranslation();
  const formatQuota = useQuotaFormatter();
  const [searchText, setSearchText] = useState('');
  const paged = useSearchableList({
    queryKey: ['redemptions', 'list'],
    fetchPage: listRedemptions,
    searchKey: ['redemptions', 'search'],
    search: searchRedemptions,
  });
  const { searching, setKeyword } = paged;
  const redemptions: Redemption[] = paged.items;
  const loading = paged.loading;

  return (
    <PageCard
      title={t('redemption.title')}
      testId="redemption-page"
      actions={
        <>
          <AddLink to="/redemption/add" testId="redemption-add">
            {t('redemption.add')}
          </AddLink>
          <RefreshButton loading={paged.refreshing} onClick={() => paged.refresh()} />
        </>
      }
    >
      <SearchBar
        value={searchText}
        onChange={setSearchText}
        onSearch={setKeyword}
        placeholder={t('redemption.searchPlaceholder')}
        loading={paged.searchFetching}
      />
      <ListState loading={loading} empty={redemptions.length === 0} emptyText={t('redemption.empty')}>
        <Stack gap="sm">
          <ResponsiveTable minWidth={900}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('redemption.id')}</Table.Th>
                <Table.Th>{t('redemption.name')}</Table.Th>
                <Table.Th>{t('common.status')}</Table.Th>
                <Table.Th>{t('redemption.quota')}</Table.Th>
                <Table.Th>{t('redemption.createdTime')}</Table.Th>
                <Table.Th>{t('redemption.redeemedTime')}</Table.Th>
                <Table.Th>{t('common.actions')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {redemptions.map((redemption) => (
                <Table.Tr key={redemption.id} data-testid="redemption-row">
                  <Table.Td>{redemption.id}</Table.Td>
                  <Table.Td>{redemption.name || t('common.none')}</Table.Td>
                  <Table.Td>
                    <RedemptionStatus status={redemption.status} />
                  </Table.Td>
                  <Table.Td>{formatQuota(redemption.quota)}</Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    {formatTimestamp(redemption.created_time)}
                  </Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    {redemption.redeemed_time
                      ? formatTimestamp(redemption.redeemed_time)
                      : t('redemption.notRedeemed')}
                  </Table.Td>
                  <Table.Td>
                    <RedemptionActions redemption={redemption} onCopyFailed={setSearchText} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </ResponsiveTable>
          {!searching && (
            <LoadMore hasMore={paged.hasMore} loading={paged.loadingMore} onClick={paged.loadMore} />
          )}
        </Stack>
      </ListState>
    </PageCard>
  );
};
