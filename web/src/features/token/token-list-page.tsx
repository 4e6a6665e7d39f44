import { Badge, Text } from '@mantine/core';
import { TOKEN_STATUS } from '@sluice/contract/statuses';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { BudgetUsageBars } from '../../components/budget-usage-bars.js';
import { ListPage } from '../../components/list-page.js';
import { OrderSelect } from '../../components/order-select.js';
import { entryOf } from '../../lib/entry-of.js';
import { formatTimestamp, useQuotaFormatter } from '../../lib/format.js';
import { LIST_ORDERS, type TokenOrder } from '@sluice/contract/list-orders';
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
  const list = useSearchableList({
    queryKey: ['tokens', 'list', order],
    fetchPage: (page, size) => listTokens(page, order, size),
    searchKey: ['tokens', 'search'],
    search: searchTokens,
  });

  return (
    <ListPage
      title={t('token.title')}
      testId="token-page"
      add={{ to: '/token/add', testId: 'token-add', label: t('token.add') }}
      intro={
        <Text size="sm" c="dimmed">
          {t('token.hint')}
        </Text>
      }
      list={list}
      searchPlaceholder={t('token.searchPlaceholder')}
      order={
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
      }
      emptyText={t('token.empty')}
      columns={[
        { label: t('token.name'), cell: (token) => token.name || t('common.none') },
        { label: t('common.status'), cell: (token) => <TokenStatus status={token.status} /> },
        { label: t('token.usedQuota'), cell: (token) => formatQuota(token.used_quota), nowrap: true },
        {
          label: t('token.remainQuota'),
          cell: (token) => (token.unlimited_quota ? t('token.unlimited') : formatQuota(token.remain_quota)),
          nowrap: true,
        },
        {
          label: t('limits.usage'),
          cell: (token) =>
            token.budget_usage?.length ? <BudgetUsageBars usage={token.budget_usage} /> : '—',
        },
        { label: t('token.createdTime'), cell: (token) => formatTimestamp(token.created_time) },
        {
          label: t('token.expiredTime'),
          cell: (token) =>
            token.expired_time === -1 ? t('token.neverExpires') : formatTimestamp(token.expired_time),
        },
      ]}
      rowActions={(token) => <TokenActions token={token} onCopyFailed={list.setSearchText} />}
      attributes={() => ({ 'data-testid': 'token-row' })}
    />
  );
};
