import { Button } from '@mantine/core';
import { IconPlus, IconRefresh } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

/** The "add" link of a list screen, to its creation form. */
export const AddLink = ({ to, testId, children }: { to: string; testId: string; children: ReactNode }) => (
  <Button component={Link} to={to} leftSection={<IconPlus size={16} />} data-testid={testId}>
    {children}
  </Button>
);

/** The refresh button of a screen, spinning while its data reloads. */
export const RefreshButton = ({ loading, onClick }: { loading: boolean; onClick: () => void }) => {
  const { t } = useTranslation();
  return (
    <Button variant="default" leftSection={<IconRefresh size={16} />} loading={loading} onClick={onClick}>
      {t('common.refresh')}
    </Button>
  );
};
