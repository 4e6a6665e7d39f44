import { EmptyState } from '@mantine/core';
import { IconTools } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

/** A screen whose feature is not built yet (replaced by the admin screens). */
export const PlaceholderScreen = ({ title }: { title: string }) => {
  const { t } = useTranslation();
  return (
    <EmptyState
      py={60}
      icon={<IconTools size={28} stroke={1.4} />}
      withIndicatorBackground
      title={title}
      description={t('common.comingSoon')}
      data-testid="placeholder-screen"
    />
  );
};
