import { Badge, Button, Divider, Group, Select, Stack, Text, Title } from '@mantine/core';
import {
  ALERT_DELIVERY_STATUSES,
  ALERT_EVENTS,
  type AlertDelivery,
  type AlertDeliveryStatus,
  type AlertEvent,
} from '@sluice/contract/schemas/alerts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { RefreshButton } from '../../components/list-buttons.js';
import { ListRows } from '../../components/list-rows.js';
import { ListState } from '../../components/list-state.js';
import { PageCard } from '../../components/page-card.js';
import { Pager } from '../../components/pager.js';
import { formatTimestamp } from '../../lib/format.js';
import { useSession } from '../../lib/session.js';
import { showError, showSuccess } from '../../lib/toast.js';
import { usePagedTable } from '../../lib/use-paged-list.js';
import { listDeliveries, listWebhooks, sendTest, type DeliveryFilters } from './alerts-api.js';
import { AlertSettingsSection } from './alert-settings.js';
import { WebhookEditor } from './webhook-editor.js';

const STATUS_COLORS: Readonly<Record<AlertDeliveryStatus, string>> = {
  pending: 'yellow',
  delivered: 'green',
  failed: 'red',
};

/** The catalogue key of each event's name (i18next reads a dot as a level). */
const EVENT_KEYS = {
  'channel.disabled': 'channelDisabled',
  'channel.enabled': 'channelEnabled',
  'channel.cooled_down': 'channelCooledDown',
  'channel.recovered': 'channelRecovered',
  'budget.threshold': 'budgetThreshold',
  'user.quota_low': 'userQuotaLow',
  'token.quota_low': 'tokenQuotaLow',
  test: 'test',
} as const satisfies Record<AlertEvent, string>;

const isStatus = (value: string): value is AlertDeliveryStatus => Object.hasOwn(STATUS_COLORS, value);
const isEvent = (value: string): value is AlertEvent => (ALERT_EVENTS as readonly string[]).includes(value);

const StatusBadge = ({ status }: { status: string }) => {
  const { t } = useTranslation();
  return (
    <Badge
      color={isStatus(status) ? STATUS_COLORS[status] : 'gray'}
      variant="light"
      data-testid="alert-status"
    >
      {isStatus(status) ? t(`alerts.statuses.${status}`) : status}
    </Badge>
  );
};

/** The configured webhooks, each with its "send test" button. */
const WebhookList = () => {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const webhooks = useQuery({ queryKey: ['alert-webhooks'], queryFn: listWebhooks });
  const test = useMutation({
    mutationFn: sendTest,
    onSuccess: async (row) => {
      if (row.status === 'delivered') showSuccess(t('alerts.testDelivered', { name: row.webhook }));
      else showError(t('alerts.testFailed', { name: row.webhook, error: row.last_error }));
      await queryClient.invalidateQueries({ queryKey: ['alert-deliveries'] });
    },
  });
  const rows = (webhooks.data ?? []).map((hook, index) => ({ ...hook, id: index + 1 }));
  return (
    <ListState loading={webhooks.isPending} empty={rows.length === 0} emptyText={t('alerts.noWebhooks')}>
      <ListRows
        items={rows}
        columns={[
          { label: t('alerts.name'), cell: (hook) => hook.name },
          { label: t('alerts.url'), cell: (hook) => hook.url },
          {
            label: t('alerts.events'),
            cell: (hook) =>
              hook.events.length === 0
                ? t('alerts.allEvents')
                : hook.events
                    .map((event) => (isEvent(event) ? t(`alerts.eventNames.${EVENT_KEYS[event]}`) : event))
                    .join(', '),
          },
        ]}
        actions={(hook) => (
          <Button
            size="compact-sm"
            variant="light"
            loading={test.isPending && test.variables === hook.name}
            onClick={() => test.mutate(hook.name)}
            data-testid="alert-send-test"
          >
            {t('alerts.sendTest')}
          </Button>
        )}
        attributes={(hook) => ({ 'data-testid': 'alert-webhook', 'data-name': hook.name })}
      />
    </ListState>
  );
};

/**
 * Alerts (administrators): the webhooks alerts go to, with a "send test" button each; root replaces
 * the list; the delivery log, filtered by event and status, a page at a time.
 */
export const AlertsPage = () => {
  const { t } = useTranslation();
  const { isRoot } = useSession();
  const [filters, setFilters] = useState<DeliveryFilters>({ event: '', status: '' });
  const list = usePagedTable({
    queryKey: ['alert-deliveries', filters],
    fetchPage: (page, size) => listDeliveries(filters, page, size),
  });
  const pick = (value: string | null) => value ?? '';
  const eventLabel = (event: string) =>
    isEvent(event) ? t(`alerts.eventNames.${EVENT_KEYS[event]}`) : event;
  return (
    <PageCard
      title={t('alerts.title')}
      testId="alerts-page"
      actions={<RefreshButton loading={list.refreshing} onClick={list.refresh} />}
    >
      <Text size="sm" c="dimmed">
        {t('alerts.intro')}
      </Text>
      <Title order={4}>{t('alerts.webhooks')}</Title>
      <WebhookList />
      {isRoot && <WebhookEditor />}
      <AlertSettingsSection />
      <Divider />
      <Title order={4}>{t('alerts.deliveries')}</Title>
      <Group gap="sm" wrap="wrap">
        <Select
          label={t('alerts.event')}
          value={filters.event}
          data={[
            { value: '', label: t('alerts.any') },
            ...ALERT_EVENTS.map((event) => ({
              value: event,
              label: t(`alerts.eventNames.${EVENT_KEYS[event]}`),
            })),
          ]}
          onChange={(value) => {
            const event = pick(value);
            setFilters((current) => ({ ...current, event: isEvent(event) ? event : '' }));
          }}
          allowDeselect={false}
        />
        <Select
          label={t('alerts.status')}
          value={filters.status}
          data={[
            { value: '', label: t('alerts.any') },
            ...ALERT_DELIVERY_STATUSES.map((status) => ({
              value: status,
              label: t(`alerts.statuses.${status}`),
            })),
          ]}
          onChange={(value) => {
            const status = pick(value);
            setFilters((current) => ({ ...current, status: isStatus(status) ? status : '' }));
          }}
          allowDeselect={false}
        />
      </Group>
      <ListState loading={list.loading} empty={list.items.length === 0} emptyText={t('alerts.noDeliveries')}>
        <Stack gap="sm">
          <ListRows<AlertDelivery>
            items={list.items}
            columns={[
              { label: t('alerts.time'), cell: (row) => formatTimestamp(row.created_at), nowrap: true },
              {
                label: t('alerts.event'),
                cell: (row) =>
                  row.object_id ? `${eventLabel(row.event)} #${row.object_id}` : eventLabel(row.event),
              },
              { label: t('alerts.name'), cell: (row) => row.webhook },
              { label: t('alerts.status'), cell: (row) => <StatusBadge status={row.status} /> },
              { label: t('alerts.attempts'), cell: (row) => String(row.attempts) },
              {
                label: t('alerts.answer'),
                cell: (row) => (row.response_code ? String(row.response_code) : '—'),
              },
              { label: t('alerts.error'), cell: (row) => row.last_error || '—' },
            ]}
            attributes={(row) => ({ 'data-testid': 'alert-delivery', 'data-id': row.id })}
          />
          <Pager
            total={list.total}
            page={list.page}
            pageCount={list.pageCount}
            size={list.size}
            onPage={list.setPage}
            onSize={list.setSize}
          />
        </Stack>
      </ListState>
    </PageCard>
  );
};
