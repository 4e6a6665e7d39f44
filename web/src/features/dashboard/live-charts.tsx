// The charts' styles travel with this lazily loaded module, out of the console's first load.
import '@mantine/charts/styles.css';
import { AreaChart } from '@mantine/charts';
import { SimpleGrid } from '@mantine/core';
import type { LiveMinute } from '@sluice/contract/schemas/live-dashboard';
import { useTranslation } from 'react-i18next';
import { formatNumber } from '../../lib/format.js';
import { liveChartRows } from './live-model.js';

/**
 * Requests and tokens per minute over the last hour (lazily loaded with @mantine/charts): two small
 * charts side by side on a desktop, one above the other on a phone, ticks every 15 minutes so
 * that the axis stays readable at 390 px.
 */
export const LiveCharts = ({ minutes }: { minutes: readonly LiveMinute[] }) => {
  const { t } = useTranslation();
  const rows = liveChartRows(minutes);
  const common = {
    h: 180,
    data: rows,
    dataKey: 'label',
    tickLine: 'none',
    gridAxis: 'y',
    withDots: false,
    curveType: 'monotone',
    valueFormatter: formatNumber,
    xAxisProps: { interval: 14, minTickGap: 8 },
    yAxisProps: { allowDecimals: false, width: 44 },
  } as const;
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
      <div data-testid="live-chart-requests">
        <AreaChart
          {...common}
          series={[{ name: 'requests', label: t('dashboard.live.requestsPerMinute'), color: 'blue.6' }]}
        />
      </div>
      <div data-testid="live-chart-tokens">
        <AreaChart
          {...common}
          series={[{ name: 'tokens', label: t('dashboard.live.tokensPerMinute'), color: 'violet.6' }]}
        />
      </div>
    </SimpleGrid>
  );
};
