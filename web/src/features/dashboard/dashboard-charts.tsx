// The charts' styles travel with this lazily loaded module, out of the console's first load.
import '@mantine/charts/styles.css';
import { BarChart, LineChart } from '@mantine/charts';
import { Card, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import type { Usage } from '@sluice/contract/schemas/log';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ResponsiveTable } from '../../components/responsive-table.js';
import { formatNumber } from '../../lib/format.js';
import { distinctDigits, niceTicks } from './dashboard-model.js';

const ChartCard = ({ title, children, testId }: { title: string; children: ReactNode; testId: string }) => (
  <Card withBorder p="sm" data-testid={testId}>
    <Stack gap="xs">
      <Title order={5}>{title}</Title>
      {children}
    </Stack>
  </Card>
);

/**
 * Usage charts (loaded lazily with @mantine/charts and recharts): requests, tokens (prompt and
 * completion) and quota per day, then quota per model and the per-model table. Charts take the
 * card's width, so they follow the window down to 390 px.
 */
export const DashboardCharts = ({
  usage,
  formatQuota,
  digits,
}: {
  usage: Usage;
  /** A quota with `digits` decimals (as currency) or abbreviated. */
  formatQuota: (quota: number, digits?: number) => string;
  /** The decimals of the tooltips and the table. */
  digits: number;
}) => {
  const { t } = useTranslation();
  const days = usage.days.map((day) => ({ ...day, label: day.day.slice(5) }));
  const common = { h: 240, dataKey: 'label', data: days, tickLine: 'none', gridAxis: 'y' } as const;
  const showQuota = (quota: number) => formatQuota(quota, digits);
  // Value axes get ticks of their own: recharts' ticks formatted with few decimals (or whole
  // counts) repeated their labels ($0.00, $0.00, $0.01…).
  const countAxis = (max: number) => {
    const ticks = niceTicks(max, true);
    return { ticks, domain: [0, ticks.at(-1) ?? 1] as [number, number], allowDecimals: false };
  };
  const quotaAxis = (max: number) => {
    const ticks = niceTicks(max, false);
    const tickDigits = distinctDigits(ticks, formatQuota, digits);
    return {
      ticks,
      domain: [0, ticks.at(-1) ?? 1] as [number, number],
      tickFormatter: (value: number) => formatQuota(value, tickDigits),
    };
  };
  const maxOf = (values: readonly number[]) => Math.max(0, ...values);
  const requestTicks = countAxis(maxOf(days.map((day) => day.requests)));
  const tokenTicks = countAxis(maxOf(days.map((day) => day.prompt_tokens + day.completion_tokens)));
  return (
    <Stack gap="md">
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <ChartCard title={t('dashboard.chart.requests')} testId="chart-requests">
          <BarChart
            {...common}
            valueFormatter={formatNumber}
            yAxisProps={requestTicks}
            series={[{ name: 'requests', label: t('dashboard.requests'), color: 'blue.6' }]}
          />
        </ChartCard>
        <ChartCard title={t('dashboard.chart.quota')} testId="chart-quota">
          <LineChart
            {...common}
            curveType="monotone"
            valueFormatter={showQuota}
            yAxisProps={{ width: 88, ...quotaAxis(maxOf(days.map((day) => day.quota))) }}
            series={[{ name: 'quota', label: t('dashboard.quota'), color: 'teal.6' }]}
          />
        </ChartCard>
      </SimpleGrid>
      <ChartCard title={t('dashboard.chart.tokens')} testId="chart-tokens">
        <BarChart
          {...common}
          type="stacked"
          withLegend
          valueFormatter={formatNumber}
          yAxisProps={tokenTicks}
          series={[
            { name: 'prompt_tokens', label: t('dashboard.promptTokens'), color: 'violet.6' },
            { name: 'completion_tokens', label: t('dashboard.completionTokens'), color: 'orange.6' },
          ]}
        />
      </ChartCard>
      <ChartCard title={t('dashboard.chart.models')} testId="chart-models">
        {usage.models.length > 0 && (
          <BarChart
            h={Math.max(120, usage.models.length * 36 + 40)}
            data={usage.models.map((model) => ({ ...model }))}
            dataKey="model_name"
            orientation="vertical"
            tickLine="none"
            gridAxis="x"
            valueFormatter={showQuota}
            xAxisProps={quotaAxis(maxOf(usage.models.map((model) => model.quota)))}
            yAxisProps={{ width: 140 }}
            series={[{ name: 'quota', label: t('dashboard.quota'), color: 'teal.6' }]}
          />
        )}
        <ResponsiveTable minWidth={560}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('dashboard.model')}</Table.Th>
              <Table.Th>{t('dashboard.requests')}</Table.Th>
              <Table.Th>{t('dashboard.promptTokens')}</Table.Th>
              <Table.Th>{t('dashboard.completionTokens')}</Table.Th>
              <Table.Th>{t('dashboard.quota')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {usage.models.map((model) => (
              <Table.Tr key={model.model_name} data-testid="model-row">
                <Table.Td>
                  <Text size="sm" ff="monospace">
                    {model.model_name || t('common.none')}
                  </Text>
                </Table.Td>
                <Table.Td>{model.requests}</Table.Td>
                <Table.Td>{model.prompt_tokens}</Table.Td>
                <Table.Td>{model.completion_tokens}</Table.Td>
                <Table.Td>{showQuota(model.quota)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </ResponsiveTable>
      </ChartCard>
    </Stack>
  );
};
