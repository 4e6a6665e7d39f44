import { Badge, Group, Stack, Table, Text } from '@mantine/core';
import type { Token } from '@sluice/contract/schemas/token';
import { TOKEN_STATUS } from '@sluice/contract/statuses';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AddLink, RefreshButton } from '../../components/list-buttons.js';
import { ListState } from '../../components/list-state.js';
import { LoadMore } from '../../components/load-more.js';
import { OrderSelect } from '../../components/order-select.js';
import { PageCard } from '../../components/page-card.js';
import { ResponsiveTable } from '../../components/responsive-table.js';
import { SearchBar } from '../../components/search-bar.js';
import { entryOf } from '../../lib/entry-of.js';
import { formatTimestamp, useQuotaFormatter } from '../../lib/format.js';
import { LIST_ORDERS, type TokenOrder } from '../../lib/list-orders.js';
import { useSearchableList } from '../../lib/use-paged-list.js';
import { listTokens, searchTokens } from './token-api.js';
import { TokenActions } from './token-actions.js';

type TokenStatusName = keyof typeof TOKEN_STATUS;

/** Token status labels and colours (spec §4), one row per status of the contract. */
const STATUS: Readonly<
  Record<(typeof TOKEN_STATUS)[TokenStatusName], { key: TokenStatusName; color: string }>
> = {
  [TOKEN_STATUS.enabled]: { key: 'enabled', color: 'teal' },
  [TOKEN_STATUS.disabled]: { key: 'disabled', color: 'red' },
  [TOKEN_STATUS.expired]: { key: 'expired', color: 'yellow' },
  [TOKEN_STATUS.exhausted]: { key: 'exhausted', color: 'gray' },
};

const TokenStatus = ({ status }: { status: number }) => {
  const { t } = useTranslation();
  const entry = entryOf(STATUS, status);
  return (
    <Badge color={entry?.color ?? 'dark'} variant="light">
      {entry ? t(`token.status.${entry.key}`) : t('common.unknownStatus')}
    </Badge>
  );
};

/**
 * Tokens (spec §2): search, sort (blank, remain_quota, used_quota), load more from page 0; per row
 * the status toggle, edit, delete, copy of the key and of the four chat-client links.
 */
export const TokenListPage = () => {
  const { t } = useTranslation();
  const formatQuota = useQuotaFormatter();
  const [order, setOrder] = useState<TokenOrder>('');
  const [searchText, setSearchText] = useState('');
  const paged = useSearchableList({
    queryKey: ['tokens', 'list', order],
    fetchPage: (page) => listTokens(page, order),
    searchKey: ['tokens', 'search'],
    search: searchTokens,
  });
  const { searching, setKeyword } = paged;
  const tokens: Token[] = paged.items;
  const loading = paged.loading;

  return (
    <PageCard
      title={t('token.title')}
      testId="token-page"
      actions={
        <>
          <AddLink to="/token/add" testId="token-add">
            {t('token.add')}
          </AddLink>
          <RefreshButton loading={paged.refreshing} onClick={() => paged.refresh()} />
        </>
      }
    >
      <Text size="sm" c="dimmed">
        {t('token.hint')}
      </Text>
      <Group grow preventGrowOverflow={false} wrap="wrap" gap="sm">
        <SearchBar
          value={searchText}
          onChange={setSearchText}
          onSearch={setKeyword}
          placeholder={t('token.searchPlaceholder')}
          loading={paged.searchFetching}
        />
        <OrderSelect
          label={t('token.order.label')}
          orders={LIST_ORDERS.tokens}
          labels={{
            '': t('token.order.default'),
            remain_quota: t('token.order.remainQuota'),
            used_quota: t('token.order.usedQuota'),
          }}
          value={order}
          onChange={setOrder}
          testId="token-order"
        />
      </Group>
      <ListState loading={loading} empty={tokens.length === 0} emptyText={t('token.empty')}>
        <Stack gap="sm">
          <ResponsiveTable minWidth={1000}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('token.name')}</Table.Th>
                <Table.Th>{t('common.status')}</Table.Th>
                <Table.Th>{t('token.usedQuota')}</Table.Th>
                <Table.Th>{t('token.remainQuota')}</Table.Th>
                <Table.Th>{t('token.createdTime')}</Table.Th>
                <Table.Th>{t('token.expiredTime')}</Table.Th>
                <Table.Th>{t('common.actions')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {tokens.map((token) => (
                <Table.Tr key={token.id} data-testid="token-row">
                  <Table.Td>{token.name || t('common.none')}</Table.Td>
                  <Table.Td>
                    <TokenStatus status={token.status} />
                  </Table.Td>
                  <Table.Td>{formatQuota(token.used_quota)}</Table.Td>
                  <Table.Td>
                    {token.unlimited_quota ? t('token.unlimited') : formatQuota(token.remain_quota)}
                  </Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatTimestamp(token.created_time)}</Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    {token.expired_time === -1
                      ? t('token.neverExpires')
                      : formatTimestamp(token.expired_time)}
                  </Table.Td>
                  <Table.Td>
                    <TokenActions token={token} onCopyFailed={setSearchText} />
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
