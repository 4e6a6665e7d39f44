import { Group, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ListState } from '../../components/list-state.js';
import { LoadMore } from '../../components/load-more.js';
import { PageCard } from '../../components/page-card.js';
import { useQuotaFormatter } from '../../lib/format.js';
import { useSession } from '../../lib/session.js';
import { usePagedList } from '../../lib/use-paged-list.js';
import { exportLogs, listLogs, logStat, type LogFilters } from './log-api.js';
import { LogCleanup } from './log-cleanup.js';
import { defaultLogFilters } from './log-filter-model.js';
import { LogFilterForm } from './log-filters.js';
import { LogTable } from './log-table.js';

const Statistic = ({ label, value, testId }: { label: string; value: string; testId: string }) => (
  <Paper withBorder p="sm" radius="md">
    <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
      {label}
    </Text>
    <Text fz="xl" fw={700} data-testid={testId}>
      {value}
    </Text>
  </Paper>
);

/**
 * Logs (spec §2): filters (admins also by username and channel), the statistic of the filtered rows
 * (quota and tokens), the rows page by page, CSV export with the same filters, and for admins the
 * cleanup of old history.
 */
export const LogPage = () => {
  const { t } = useTranslation();
  const { isAdmin } = useSession();
  const formatQuota = useQuotaFormatter();
  const [filters, setFilters] = useState<LogFilters>(() => defaultLogFilters());
  const paged = usePagedList({
    queryKey: ['logs', 'list', isAdmin, filters],
    fetchPage: (page) => listLogs(filters, isAdmin, page),
  });
  const stat = useQuery({
    queryKey: ['logs', 'stat', isAdmin, filters],
    queryFn: () => logStat(filters, isAdmin),
  });
  const download = useMutation({ mutationFn: (current: LogFilters) => exportLogs(current, isAdmin) });

  return (
    <PageCard title={t('log.title')} testId="log-page" actions={isAdmin ? <LogCleanup /> : undefined}>
      <LogFilterForm
        initial={filters}
        admin={isAdmin}
        onApply={setFilters}
        onExport={(current) => download.mutate(current)}
        exporting={download.isPending}
      />
      <SimpleGrid cols={{ base: 2, sm: 3 }} spacing="sm">
        <Statistic
          label={t('log.statQuota')}
          value={stat.data ? formatQuota(stat.data.quota) : '—'}
          testId="log-stat-quota"
        />
        <Statistic
          label={t('log.statTokens')}
          value={stat.data ? String(stat.data.token) : '—'}
          testId="log-stat-tokens"
        />
      </SimpleGrid>
      <ListState loading={paged.loading} empty={paged.items.length === 0} emptyText={t('log.empty')}>
        <Stack gap="sm">
          <LogTable logs={paged.items} admin={isAdmin} />
          <Group justify="center">
            <LoadMore hasMore={paged.hasMore} loading={paged.loadingMore} onClick={paged.loadMore} />
          </Group>
        </Stack>
      </ListState>
    </PageCard>
  );
};
