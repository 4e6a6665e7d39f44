import { Badge, Group, Stack, Table, Text, Tooltip } from '@mantine/core';
import type { User } from '@sluice/contract/schemas/user';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { GroupBadges } from '../../components/group-badges.js';
import { AddLink, RefreshButton } from '../../components/list-buttons.js';
import { ListState } from '../../components/list-state.js';
import { LoadMore } from '../../components/load-more.js';
import { OrderSelect } from '../../components/order-select.js';
import { PageCard } from '../../components/page-card.js';
import { ResponsiveTable } from '../../components/responsive-table.js';
import { SearchBar } from '../../components/search-bar.js';
import { entryOf } from '../../lib/entry-of.js';
import { truncate, useQuotaFormatter } from '../../lib/format.js';
import { LIST_ORDERS, type UserOrder } from '../../lib/list-orders.js';
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
  const [searchText, setSearchText] = useState('');
  const [changes, setChanges] = useState<Readonly<Record<number, ManageResult>>>({});
  const [hidden, setHidden] = useState<ReadonlySet<number>>(new Set());
  const paged = useSearchableList({
    queryKey: ['users', 'list', order],
    fetchPage: (page) => listUsers(page, order),
    searchKey: ['users', 'search'],
    search: searchUsers,
  });
  const { searching, setKeyword } = paged;
  const users: User[] = paged.items
    .filter((user) => !hidden.has(user.id))
    .map((user) => ({ ...user, ...changes[user.id] }));
  const loading = paged.loading;
  const refresh = () => {
    setChanges({});
    setHidden(new Set());
    paged.refresh();
  };
  const managed = (id: number, action: string, result: ManageResult) => {
    if (action === 'delete') setHidden((current) => new Set([...current, id]));
    else setChanges((current) => ({ ...current, [id]: result }));
  };

  return (
    <PageCard
      title={t('userAdmin.title')}
      testId="user-page"
      actions={
        <>
          <AddLink to="/user/add" testId="user-add">
            {t('userAdmin.add')}
          </AddLink>
          <RefreshButton loading={paged.refreshing} onClick={refresh} />
        </>
      }
    >
      <Group grow preventGrowOverflow={false} wrap="wrap" gap="sm">
        <SearchBar
          value={searchText}
          onChange={setSearchText}
          onSearch={setKeyword}
          placeholder={t('userAdmin.searchPlaceholder')}
          loading={paged.searchFetching}
        />
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
          disabled={searching}
          testId="user-order"
        />
      </Group>
      <ListState loading={loading} empty={users.length === 0} emptyText={t('userAdmin.empty')}>
        <Stack gap="sm">
          <ResponsiveTable minWidth={1000}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>ID</Table.Th>
                <Table.Th>{t('userAdmin.username')}</Table.Th>
                <Table.Th>{t('userAdmin.group')}</Table.Th>
                <Table.Th>{t('userAdmin.stats')}</Table.Th>
                <Table.Th>{t('userAdmin.roleLabel')}</Table.Th>
                <Table.Th>{t('common.status')}</Table.Th>
                <Table.Th>{t('common.actions')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {users.map((user) => (
                <Table.Tr key={user.id} data-testid="user-row" data-username={user.username}>
                  <Table.Td>{user.id}</Table.Td>
                  <Table.Td>
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
                  </Table.Td>
                  <Table.Td>
                    <GroupBadges groups={user.group} />
                  </Table.Td>
                  <Table.Td>
                    <UserStats user={user} formatQuota={formatQuota} />
                  </Table.Td>
                  <Table.Td>
                    <RoleBadge role={user.role} />
                  </Table.Td>
                  <Table.Td>
                    <StatusBadge status={user.status} />
                  </Table.Td>
                  <Table.Td>
                    <UserActions
                      user={user}
                      viewerRole={viewerRole}
                      onManaged={(action, result) => managed(user.id, action, result)}
                    />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </ResponsiveTable>
          {!searching && (
            <LoadMore hasMore={paged.hasMore} loading={paged.loadingMore} onClick={paged.loadMore} />
          )}
        </Stack>
      </ListState>
    </PageCard>
  );
};
