import { Badge, Table, Text, Tooltip } from '@mantine/core';
import type { Log, LogRouting } from '@sluice/contract/schemas/log';
import { LOG_TYPE } from '@sluice/contract/statuses';
import { useTranslation } from 'react-i18next';
import { ResponsiveTable } from '../../components/responsive-table.js';
import { formatTimestamp, truncate, useQuotaFormatter } from '../../lib/format.js';
import { clientFormatOf, LOG_TYPES } from './log-filter-model.js';

const LogType = ({ type }: { type: number }) => {
  const { t } = useTranslation();
  const entry = LOG_TYPES.find(
    (candidate) => candidate.value === type && candidate.value !== LOG_TYPE.unknown,
  );
  return (
    <Badge color={entry?.color ?? 'dark'} variant="light">
      {entry ? t(`log.types.${entry.key}`) : t('log.types.unknown')}
    </Badge>
  );
};

/** The client format of a row as a short badge; nothing for rows that do not say it. */
const ClientFormatBadge = ({ value }: { value: string }) => {
  const { t } = useTranslation();
  const format = clientFormatOf(value);
  if (!format) return null;
  return (
    <Badge color={format.color} variant="outline" size="sm" data-testid="log-client-format-badge">
      {t(`log.formats.${format.value}`)}
    </Badge>
  );
};

/** How the request was routed (admins): the strategy, the affinity, each attempt in order. */
const RoutingDetail = ({ routing }: { routing: LogRouting }) => {
  const { t } = useTranslation();
  return (
    <Text size="xs" c="dimmed" data-testid="log-routing">
      {t('log.routing.title', { strategy: routing.strategy })}
      {routing.affinity ? ` · ${t('log.routing.affinity')}` : ''}
      {routing.attempts.map((attempt, index) => (
        <span key={index} data-testid="log-attempt" style={{ display: 'block' }}>
          {t('log.routing.attempt', {
            channel: attempt.channel,
            key: attempt.key,
            status: attempt.status,
            reason: attempt.reason ? ` ${attempt.reason}` : '',
            ms: attempt.ms,
          })}
        </span>
      ))}
    </Text>
  );
};

/** The log rows; channel and user columns for admins only (and the routing in the detail). */
export const LogTable = ({ logs, admin }: { logs: Log[]; admin: boolean }) => {
  const { t } = useTranslation();
  const formatQuota = useQuotaFormatter();
  return (
    // Fits the card at 1280 px (cells wrap, the detail takes what is left); narrower, it scrolls.
    <ResponsiveTable minWidth={admin ? 840 : 720}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>{t('log.time')}</Table.Th>
          {admin && <Table.Th>{t('log.channel')}</Table.Th>}
          {admin && <Table.Th>{t('log.user')}</Table.Th>}
          <Table.Th>{t('log.token')}</Table.Th>
          <Table.Th>{t('log.type')}</Table.Th>
          <Table.Th>{t('log.format')}</Table.Th>
          <Table.Th>{t('log.model')}</Table.Th>
          <Table.Th>{t('log.promptTokens')}</Table.Th>
          <Table.Th>{t('log.completionTokens')}</Table.Th>
          <Table.Th>{t('log.quota')}</Table.Th>
          <Table.Th>{t('log.detail')}</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {logs.map((log) => (
          <Table.Tr key={log.id} data-testid="log-row">
            <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatTimestamp(log.created_at)}</Table.Td>
            {admin && <Table.Td>{log.channel || ''}</Table.Td>}
            {admin && (
              <Table.Td>
                <Tooltip label={log.username} disabled={log.username.length <= 15}>
                  <Text inherit>{truncate(log.username)}</Text>
                </Tooltip>
              </Table.Td>
            )}
            <Table.Td>{log.token_name}</Table.Td>
            <Table.Td>
              <LogType type={log.type} />
            </Table.Td>
            <Table.Td>
              <ClientFormatBadge value={log.client_format} />
            </Table.Td>
            <Table.Td>{log.model_name}</Table.Td>
            <Table.Td>{log.prompt_tokens || ''}</Table.Td>
            <Table.Td>{log.completion_tokens || ''}</Table.Td>
            <Table.Td style={{ whiteSpace: 'nowrap' }}>{log.quota ? formatQuota(log.quota, 6) : ''}</Table.Td>
            <Table.Td miw={120} maw={360}>
              <Text inherit lineClamp={3} style={{ overflowWrap: 'anywhere' }}>
                {log.content}
              </Text>
              {admin && log.routing && <RoutingDetail routing={log.routing} />}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </ResponsiveTable>
  );
};
