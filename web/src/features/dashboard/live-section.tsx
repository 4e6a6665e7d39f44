import { Card, Center, Group, Loader, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { formatNumber, useQuotaFormatter } from '../../lib/format.js';
import { useSession } from '../../lib/session.js';
import { getGatewayLive, getOwnLive, LIVE_POLL_MS } from './live-api.js';
import { hourTotals } from './live-model.js';
import { LiveTables } from './live-tables.js';

/** The per-minute charts come in their own chunk (@mantine/charts, recharts), as the usage charts. */
const LiveCharts = lazy(async () => ({ default: (await import('./live-charts.js')).LiveCharts }));

const LiveStat = ({ label, value, testId }: { label: string; value: string; testId: string }) => (
  <Card withBorder p="xs">
    <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
      {label}
    </Text>
    <Text size="lg" fw={700} data-testid={testId}>
      {value}
    </Text>
  </Card>
);

/**
 * The live section of the dashboard: the last hour from the server's own counters, read again
 * every few seconds without reloading. Administrators see the whole gateway (and its channels and
 * models, LiveTables); everyone else their own requests and tokens per minute and today's spend.
 */
export const LiveSection = () => {
  const { t } = useTranslation();
  const formatQuota = useQuotaFormatter();
  const { isAdmin } = useSession();
  const gateway = useQuery({
    queryKey: ['live', 'gateway'],
    queryFn: getGatewayLive,
    enabled: isAdmin,
    refetchInterval: LIVE_POLL_MS,
  });
  const own = useQuery({
    queryKey: ['live', 'own'],
    queryFn: getOwnLive,
    enabled: !isAdmin,
    refetchInterval: LIVE_POLL_MS,
  });
  const live = isAdmin ? gateway.data : own.data;
  const totals = live ? hourTotals(live.minutes) : undefined;
  return (
    <Card withBorder p="sm" data-testid="live-section">
      <Stack gap="sm">
        <Group justify="space-between" gap="xs">
          <Title order={5}>{isAdmin ? t('dashboard.live.titleGateway') : t('dashboard.live.titleOwn')}</Title>
          <Text size="xs" c="dimmed">
            {t('dashboard.live.refreshing', { seconds: LIVE_POLL_MS / 1000 })}
          </Text>
        </Group>
        {!live || !totals ? (
          <Center py="md">
            <Loader size="sm" />
          </Center>
        ) : (
          <>
            <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="xs">
              <LiveStat label={t('dashboard.live.rpm')} value={formatNumber(live.rpm)} testId="live-rpm" />
              <LiveStat label={t('dashboard.live.tpm')} value={formatNumber(live.tpm)} testId="live-tpm" />
              <LiveStat
                label={t('dashboard.live.hourRequests')}
                value={formatNumber(totals.requests)}
                testId="live-hour-requests"
              />
              {own.data && !isAdmin ? (
                <LiveStat
                  label={t('dashboard.live.spentToday')}
                  value={formatQuota(own.data.spent_today)}
                  testId="live-spent-today"
                />
              ) : (
                <LiveStat
                  label={t('dashboard.live.hourTokens')}
                  value={formatNumber(totals.tokens)}
                  testId="live-hour-tokens"
                />
              )}
            </SimpleGrid>
            <Suspense
              fallback={
                <Center py="md">
                  <Loader size="sm" />
                </Center>
              }
            >
              <LiveCharts minutes={live.minutes} />
            </Suspense>
            {isAdmin && gateway.data && <LiveTables live={gateway.data} />}
          </>
        )}
      </Stack>
    </Card>
  );
};
