import { Center, EmptyState, Loader } from '@mantine/core';
import { IconInbox } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * Loading and empty states of a list (spec §4: a failed load shows its message and an empty
 * state): a loader while the first page loads, the empty state when nothing came, else the list.
 */
export const ListState = ({
  loading,
  empty,
  emptyText,
  children,
}: {
  loading: boolean;
  empty: boolean;
  emptyText?: ReactNode;
  children: ReactNode;
}) => {
  const { t } = useTranslation();
  if (loading)
    return (
      <Center py="xl" data-testid="list-loading">
        <Loader size="md" aria-label={t('common.loading')} />
      </Center>
    );
  if (empty)
    return (
      <EmptyState
        py="xl"
        icon={<IconInbox size={28} stroke={1.4} />}
        withIndicatorBackground
        title={t('common.emptyTitle')}
        description={emptyText ?? t('common.emptyDescription')}
        data-testid="list-empty"
      />
    );
  return <>{children}</>;
};
