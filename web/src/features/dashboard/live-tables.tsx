import { Badge, Group, Stack, Table, Text, Title } from '@mantine/core';
import type { LiveDashboard } from '@sluice/contract/schemas/live-dashboard';
import { useTranslation } from 'react-i18next';
import { ResponsiveTable } from '../../components/responsive-table.js';
import { formatNumber, formatTimestamp } from '../../lib/format.js';
import { percent } from './live-model.js';

const STATE_COLOR = { cooling: 'orange', half_open: 'yellow', disabled: 'red' } as const;

/**
 * The administrators' part of the live section: the channels the breaker cools down or that are
 * disabled, error rate and first-byte time per channel, cache-hit rate per model (over the hour).
 * Tables scroll inside their card below their width, so 390 px never overflows.
 */
export const LiveTables = ({ live }: { live: LiveDashboard }) => {
  const { t } = useTranslation();
  return (
    <Stack gap="md">
      <Stack gap={4} data-testid="live-channel-states">
        <Title order={6}>{t('dashboard.live.channelStates')}</Title>
        {live.channel_states.length === 0 ? (
          <Text size="sm" c="dimmed">
            {t('dashboard.live.allChannelsServing')}
          </Text>
        ) : (
          <Group gap="xs">
            {live.channel_states.map((channel) => (
              <Badge
                key={channel.id}
                color={STATE_COLOR[channel.state]}
                variant="light"
                data-testid="live-channel-state"
                title={
                  channel.cooled_until > 0
                    ? t('dashboard.live.cooledUntil', { time: formatTimestamp(channel.cooled_until) })
                    : undefined
                }
              >
                #{channel.id} {channel.name} · {t(`dashboard.live.state.${channel.state}`)}
              </Badge>
            ))}
          </Group>
        )}
      </Stack>
      <Stack gap={4}>
        <Title order={6}>{t('dashboard.live.channels')}</Title>
        <ResponsiveTable minWidth={360}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('dashboard.live.channel')}</Table.Th>
              <Table.Th ta="right">{t('dashboard.live.attempts')}</Table.Th>
              <Table.Th ta="right">{t('dashboard.live.errorRate')}</Table.Th>
              <Table.Th ta="right">{t('dashboard.live.firstByte')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {live.channels.map((channel) => (
              <Table.Tr key={channel.channel_id} data-testid="live-channel-row">
                <Table.Td>#{channel.channel_id}</Table.Td>
                <Table.Td ta="right">{formatNumber(channel.attempts)}</Table.Td>
                <Table.Td ta="right" c={channel.error_rate >= 0.1 ? 'red' : undefined}>
                  {percent(channel.error_rate)}
                </Table.Td>
                <Table.Td ta="right">
                  {channel.first_byte_ms === null ? '–' : `${formatNumber(channel.first_byte_ms)} ms`}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </ResponsiveTable>
      </Stack>
      <Stack gap={4}>
        <Title order={6}>{t('dashboard.live.models')}</Title>
        <ResponsiveTable minWidth={360}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('dashboard.model')}</Table.Th>
              <Table.Th ta="right">{t('dashboard.promptTokens')}</Table.Th>
              <Table.Th ta="right">{t('dashboard.live.cacheHitRate')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {live.models.map((model) => (
              <Table.Tr key={model.model} data-testid="live-model-row">
                <Table.Td>{model.model}</Table.Td>
                <Table.Td ta="right">{formatNumber(model.prompt_tokens)}</Table.Td>
                <Table.Td ta="right">{percent(model.cache_hit_rate)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </ResponsiveTable>
      </Stack>
    </Stack>
  );
};
