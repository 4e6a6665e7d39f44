import { Card, Center, EmptyState, Loader, SimpleGrid, Stack, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconChartBar } from '@tabler/icons-react';
import { skipToken, useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { RefreshButton } from '../../components/list-buttons.js';
import { ListState } from '../../components/list-state.js';
import { PageCard } from '../../components/page-card.js';
import { formatNumber, useQuotaFormatter } from '../../lib/format.js';
import { useSession } from '../../lib/session.js';
import { getUsage } from './dashboard-api.js';
import { DashboardFilterBar } from './dashboard-filters.js';
import { LiveSection } from './live-section.js';
import {
  defaultFilters,
  isEmptyUsage,
  quotaDigits,
  rangeOf,
  totalsOf,
  usageRequest,
  type DashboardFilters,
} from './dashboard-model.js';

/** The charts (@mantine/charts, recharts) come in their own chunk, after the page. */
const DashboardCharts = lazy(async () => ({
  default: (await import('./dashboard-charts.js')).DashboardCharts,
}));

const ChartsLoader = () => (
  <Center py="xl" data-testid="charts-loading">
    <Loader size="md" />
  </Center>
);

const Stat = ({ label, value, testId }: { label: string; value: string; testId: string }) => (
  <Card withBorder p="sm">
    <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
      {label}
    </Text>
    <Text size="xl" fw={700} data-testid={testId}>
      {value}
    </Text>
  </Card>
);

/**
 * Dashboard (beyond the spec): usage per day and per model over a range, in the browser's time zone;
 * for everyone their own, for admins also all users, one user or one channel.
 */
export const DashboardPage = () => {
  const { t } = useTranslation();
  const formatQuota = useQuotaFormatter();
  const { isAdmin } = useSession();
  const [filters, setFilters] = useState<DashboardFilters>(() => defaultFilters());
  const [now, setNow] = useState(() => new Date());
  const [username] = useDebouncedValue(filters.username, 400);
  const [channel] = useDebouncedValue(filters.channel, 400);
  const range = rangeOf(filters, now);
  const request =
    typeof range === 'string' ? undefined : usageRequest({ ...filters, username, channel }, range, isAdmin);
  const usage = useQuery({
    queryKey: ['usage', request],
    queryFn: request ? () => getUsage(request) : skipToken,
  });
  /** A new range or scope reads up to now; typing a username or channel keeps the range. */
  const change = (next: DashboardFilters) => {
    const rangeChanged = (['preset', 'startDate', 'endDate', 'scope'] as const).some(
      (key) => next[key] !== filters[key],
    );
    setFilters(next);
    if (rangeChanged) setNow(new Date());
  };
  const totals = usage.data ? totalsOf(usage.data.days) : undefined;
  /** Quota with enough decimals for the largest day or model of the range. */
  const digits = quotaDigits(
    formatQuota,
    Math.max(
      0,
      ...(usage.data?.days ?? []).map((day) => day.quota),
      ...(usage.data?.models ?? []).map((model) => model.quota),
    ),
  );

  return (
    <PageCard
      title={t('dashboard.title')}
      testId="dashboard-page"
      actions={<RefreshButton loading={usage.isFetching} onClick={() => setNow(new Date())} />}
    >
      <LiveSection />
      <DashboardFilterBar filters={filters} onChange={change} admin={isAdmin} />
      {typeof range === 'string' && (
        <Text size="sm" c="red" data-testid="dashboard-range-error">
          {t(range)}
        </Text>
      )}
      {request === undefined && typeof range !== 'string' && (
        <Text size="sm" c="dimmed">
          {filters.scope === 'user' ? t('dashboard.needUsername') : t('dashboard.needChannel')}
        </Text>
      )}
      {request !== undefined && (
        <ListState loading={usage.isPending} empty={false}>
          {usage.data && totals && (
            <Stack gap="md">
              <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="sm">
                <Stat
                  label={t('dashboard.requests')}
                  value={formatNumber(totals.requests)}
                  testId="total-requests"
                />
                <Stat
                  label={t('dashboard.promptTokens')}
                  value={formatNumber(totals.prompt_tokens)}
                  testId="total-prompt"
                />
                <Stat
                  label={t('dashboard.completionTokens')}
                  value={formatNumber(totals.completion_tokens)}
                  testId="total-completion"
                />
                <Stat
                  label={t('dashboard.quota')}
                  value={formatQuota(totals.quota, quotaDigits(formatQuota, totals.quota))}
                  testId="total-quota"
                />
              </SimpleGrid>
              {isEmptyUsage(usage.data) ? (
                <EmptyState
                  py="xl"
                  icon={<IconChartBar size={28} stroke={1.4} />}
                  withIndicatorBackground
                  title={t('dashboard.emptyTitle')}
                  description={t('dashboard.emptyDescription')}
                  data-testid="dashboard-empty"
                />
              ) : (
                <Suspense fallback={<ChartsLoader />}>
                  <DashboardCharts usage={usage.data} formatQuota={formatQuota} digits={digits} />
                </Suspense>
              )}
            </Stack>
          )}
        </ListState>
      )}
    </PageCard>
  );
};
