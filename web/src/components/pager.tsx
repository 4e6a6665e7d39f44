import { Group, Pagination, Select, Text } from '@mantine/core';
import { PAGE_SIZES } from '@sluice/contract/schemas/common';
import { useTranslation } from 'react-i18next';

/**
 * The pager of a list (spec §2): the total, the pages (a compact row on a phone) and the page size
 * (10, 20, 50 or 100 rows).
 */
export const Pager = ({
  total,
  page,
  pageCount,
  size,
  onPage,
  onSize,
}: {
  total: number;
  /** From 0. */
  page: number;
  pageCount: number;
  size: number;
  onPage: (page: number) => void;
  onSize: (size: number) => void;
}) => {
  const { t } = useTranslation();
  return (
    <Group justify="space-between" gap="sm" wrap="wrap" data-testid="pager">
      <Text size="sm" c="dimmed" data-testid="pager-total">
        {t('common.pager.total', { count: total })}
      </Text>
      <Group gap="sm" wrap="wrap">
        <Pagination
          total={pageCount}
          value={page + 1}
          onChange={(value) => onPage(value - 1)}
          size="sm"
          siblings={1}
          boundaries={1}
          getControlProps={(control) => ({ 'data-testid': `pager-${control}` })}
          getItemProps={(value) => ({ 'data-testid': `pager-page-${value}` })}
        />
        <Select
          size="xs"
          w={110}
          aria-label={t('common.pager.pageSize')}
          data={PAGE_SIZES.map((value) => ({
            value: String(value),
            label: t('common.pager.perPage', { count: value }),
          }))}
          value={String(size)}
          allowDeselect={false}
          onChange={(value) => value && onSize(Number(value))}
          comboboxProps={{ withinPortal: true }}
          data-testid="page-size"
        />
      </Group>
    </Group>
  );
};
