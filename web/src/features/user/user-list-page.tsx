import { Badge, Stack, Text, Tooltip } from '@mantine/core';
import type { User } from '@sluice/contract/schemas/user';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { GroupBadges } from '../../components/group-badges.js';
import { ListPage } from '../../components/list-page.js';
import { OrderSelect } from '../../components/order-select.js';
import { entryOf } from '../../lib/entry-of.js';
import { truncate, useQuotaFormatter } from '../../lib/format.js';
import { LIST_ORDERS, type UserOrder } from '@sluice/contract/list-orders';
import { useSession } from '../../lib/session.js';
import { useSearchableList } from '../../lib/use-paged-list.js';
import { UserActions } from './user-actions.js';
import { listUsers, searchUsers, type ManageResult } from './user-api.js';
import { ROLE_LABELS, STATUS_LABELS } from './user-row-model.js';

const RoleBadge = ({ role }: { role: number }) => {
  const { t } = useTranslation();
  const entry = entryOf(ROLE_LABELS, role);
  return (
    <Badge color={entry?.color ?? 'dark'} variant="light" size="sm">
      {entry ? t(`userAdmin.role.${entry.key}`) : t('userAdmin.role.unknown')}
    </Badge>
  );
};

const StatusBadge = ({ status }: { status: number }) => {
  const { t } = useTranslation();
  const entry = entryOf(STATUS_LABELS, status);
  return (
    <Badge color={entry?.color ?? 'gray'} variant="light" size="sm" data-testid="user-status">
      {entry ? t(`userAdmin.status.${entry.key}`) : t('common.unknownStatus')}
    </Badge>
  );
};

/** Remaining quota, used quota and requests in one cell (as one-api's statistics column). */
const UserStats = ({ user, formatQuota }: { user: User; formatQuota: (quota: number) => string }) => {
  const { t } = useTranslation();
  const line = (label: string, value: string) => (
    <Text size="xs" style={{ whiteSpace: 'nowrap' }}>
      <Text span size="xs" c="dimmed">
        {label}
      </Text>{' '}
      {value}
    </Text>
  );
  return (
    <Stack gap={0}>
      {line(t('userAdmin.statsQuota'), formatQuota(user.quota))}
      {line(t('userAdmin.statsUsed'), formatQuota(user.used_quota))}
      {line(t('userAdmin.statsRequests'), String(user.request_count))}
    </Stack>
  );
};

/**
 * User management (spec §2): heading 'manage users', search, a table sorted by quota, used quota or
 * request count (?order=), more pages while the last one was full, row actions (root rows locked) and a
 * link to add a user.
 */
export const UserListPage = () => {
  const { t } = useTranslation();
  const formatQuota = useQuotaFormatter();
  const viewerRole = useSession().user?.role ?? 0;
  const [order, setOrder] = useState<UserOrder>('');
  const [changes, setChanges] = useState<Readonly<Record<number, ManageResult>>>({});
  const [hidden, setHidden] = useState<ReadonlySet<number>>(new Set());
  const list = useSearchableList({
    queryKey: ['users', 'list', order],
    fetchPage: (page, size) => listUsers(page, order, size),
    searchKey: ['users', 'search'],
    search: searchUsers,
  });
  const users: User[] = list.items
    .filter((user) => !hidden.has(user.id))
    .map((user) => ({ ...user, ...changes[user.id] }));
  const refresh = () => {
    setChanges({});
    setHidden(new Set());
    list.refresh();
  };
  const managed = (id: number, action: string, result: ManageResult) => {
    if (action === 'delete') setHidden((current) => new Set([...current, id]));
    else setChanges((current) => ({ ...current, [id]: result }));
  };

  return (
    <ListPage
      title={t('userAdmin.title')}
      testId="user-page"
      add={{ to: '/user/add', testId: 'user-add', label: t('userAdmin.add') }}
      onRefresh={refresh}
      list={list}
      searchPlaceholder={t('userAdmin.searchPlaceholder')}
      order={
        <OrderSelect
          label={t('userAdmin.order.label')}
          orders={LIST_ORDERS.users}
          labels={{
            '': t('userAdmin.order.default'),
            quota: t('userAdmin.order.quota'),
            used_quota: t('userAdmin.order.usedQuota'),
            request_count: t('userAdmin.order.requestCount'),
          }}
          value={order}
          onChange={setOrder}
          disabled={list.searching}
          testId="user-order"
        />
      }
      items={users}
      emptyText={t('userAdmin.empty')}
      columns={[
        { label: 'ID', cell: (user) => user.id },
        {
          label: t('userAdmin.username'),
          cell: (user) => (
            <>
              <Tooltip label={user.display_name || user.username} withinPortal>
                <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
                  {truncate(user.username)}
                </Text>
              </Tooltip>
              {user.email !== '' && (
                <Text size="xs" c="dimmed">
                  {user.email}
                </Text>
              )}
            </>
          ),
        },
        { label: t('userAdmin.group'), cell: (user) => <GroupBadges groups={user.group} /> },
        { label: t('userAdmin.stats'), cell: (user) => <UserStats user={user} formatQuota={formatQuota} /> },
        { label: t('userAdmin.roleLabel'), cell: (user) => <RoleBadge role={user.role} /> },
        { label: t('common.status'), cell: (user) => <StatusBadge status={user.status} /> },
      ]}
      rowActions={(user) => (
        <UserActions
          user={user}
          viewerRole={viewerRole}
          onManaged={(action, result) => managed(user.id, action, result)}
        />
      )}
      attributes={(user) => ({ 'data-testid': 'user-row', 'data-username': user.username })}
    />
  );
};
