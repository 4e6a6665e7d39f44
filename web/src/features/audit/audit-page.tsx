import { Badge, Button, Stack, Text } from '@mantine/core';
import {
  AUDIT_OBJECTS,
  type AuditAction,
  type AuditObject,
  type AuditRow,
} from '@sluice/contract/schemas/audit';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { RefreshButton } from '../../components/list-buttons.js';
import { ListRows } from '../../components/list-rows.js';
import { ListState } from '../../components/list-state.js';
import { PageCard } from '../../components/page-card.js';
import { Pager } from '../../components/pager.js';
import { formatTimestamp } from '../../lib/format.js';
import { usePagedTable } from '../../lib/use-paged-list.js';
import { emptyAuditFilters, exportAudit, listAudit, type AuditFilters } from './audit-api.js';
import { AuditDetailDialog } from './audit-detail-dialog.js';
import { AuditFilterForm } from './audit-filters.js';

/** The badge colour of each action: red for removals and refused sign-ins. */
const ACTION_COLORS: Readonly<Record<AuditAction, string>> = {
  create: 'green',
  update: 'blue',
  update_status: 'blue',
  delete: 'red',
  delete_disabled: 'red',
  manage: 'orange',
  top_up: 'cyan',
  enable: 'green',
  disable: 'orange',
  reset: 'orange',
  sign_in: 'teal',
  sign_in_failed: 'red',
};

const isAction = (value: string): value is AuditAction => Object.hasOwn(ACTION_COLORS, value);
const isObject = (value: string): value is AuditObject =>
  (AUDIT_OBJECTS as readonly string[]).includes(value);

const ActionBadge = ({ action }: { action: string }) => {
  const { t } = useTranslation();
  return isAction(action) ? (
    <Badge color={ACTION_COLORS[action]} variant="light" data-testid="audit-action-badge">
      {t(`audit.actions.${action}`)}
    </Badge>
  ) : (
    <Badge color="gray" variant="light">
      {action}
    </Badge>
  );
};

/**
 * The audit log (administrators): who changed what and every sign-in, filtered by who, object type,
 * action and time, a page at a time; the fields before and after a change in a dialog; the filtered
 * rows as CSV. Rows cannot be changed here or anywhere else.
 */
export const AuditPage = () => {
  const { t } = useTranslation();
  const [filters, setFilters] = useState<AuditFilters>(emptyAuditFilters);
  const [shown, setShown] = useState<AuditRow>();
  const list = usePagedTable({
    queryKey: ['audit', filters],
    fetchPage: (page, size) => listAudit(filters, page, size),
  });
  const download = useMutation({ mutationFn: exportAudit });
  const objectLabel = (row: AuditRow) =>
    isObject(row.object_type) ? t(`audit.objects.${row.object_type}`) : row.object_type;

  return (
    <PageCard
      title={t('audit.title')}
      testId="audit-page"
      actions={<RefreshButton loading={list.refreshing} onClick={list.refresh} />}
    >
      <Text size="sm" c="dimmed">
        {t('audit.intro')}
      </Text>
      <AuditFilterForm
        initial={filters}
        onApply={setFilters}
        onExport={(current) => download.mutate(current)}
        exporting={download.isPending}
      />
      <ListState loading={list.loading} empty={list.items.length === 0} emptyText={t('audit.empty')}>
        <Stack gap="sm">
          <ListRows
            items={list.items}
            columns={[
              { label: t('audit.time'), cell: (row) => formatTimestamp(row.created_at), nowrap: true },
              { label: t('audit.who'), cell: (row) => row.username || '—' },
              { label: t('audit.ip'), cell: (row) => row.ip },
              {
                label: t('audit.object'),
                cell: (row) => (row.object_id ? `${objectLabel(row)} ${row.object_id}` : objectLabel(row)),
              },
              { label: t('audit.action'), cell: (row) => <ActionBadge action={row.action} /> },
              { label: t('audit.detail'), cell: (row) => row.detail },
            ]}
            actions={(row) => (
              <Button
                size="compact-sm"
                variant="light"
                onClick={() => setShown(row)}
                data-testid="audit-show"
              >
                {t('audit.show')}
              </Button>
            )}
            attributes={(row) => ({ 'data-testid': 'audit-row', 'data-id': row.id })}
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
      <AuditDetailDialog row={shown} onClose={() => setShown(undefined)} />
    </PageCard>
  );
};
