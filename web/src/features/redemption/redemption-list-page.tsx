import { Badge } from '@mantine/core';
import { REDEMPTION_STATUS } from '@sluice/contract/statuses';
import { useTranslation } from 'react-i18next';
import { ListPage } from '../../components/list-page.js';
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
  const list = useSearchableList({
    queryKey: ['redemptions', 'list'],
    fetchPage: listRedemptions,
    searchKey: ['redemptions', 'search'],
    search: searchRedemptions,
  });

  return (
    <ListPage
      title={t('redemption.title')}
      testId="redemption-page"
      add={{ to: '/redemption/add', testId: 'redemption-add', label: t('redemption.add') }}
      list={list}
      searchPlaceholder={t('redemption.searchPlaceholder')}
      emptyText={t('redemption.empty')}
      columns={[
        { label: t('redemption.id'), cell: (redemption) => redemption.id },
        { label: t('redemption.name'), cell: (redemption) => redemption.name || t('common.none') },
        { label: t('common.status'), cell: (redemption) => <RedemptionStatus status={redemption.status} /> },
        { label: t('redemption.quota'), cell: (redemption) => formatQuota(redemption.quota), nowrap: true },
        {
          label: t('redemption.createdTime'),
          cell: (redemption) => formatTimestamp(redemption.created_time),
        },
        {
          label: t('redemption.redeemedTime'),
          cell: (redemption) =>
            redemption.redeemed_time
              ? formatTimestamp(redemption.redeemed_time)
              : t('redemption.notRedeemed'),
        },
      ]}
      rowActions={(redemption) => (
        <RedemptionActions redemption={redemption} onCopyFailed={list.setSearchText} />
      )}
      attributes={() => ({ 'data-testid': 'redemption-row' })}
    />
  );
};
