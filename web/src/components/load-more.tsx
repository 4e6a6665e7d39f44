import { Button, Center } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** Loads the next page of a list while the last loaded page was full. */
export const LoadMore = ({
  hasMore,
  loading,
  onClick,
}: {
  hasMore: boolean;
  loading: boolean;
  onClick: () => void;
}) => {
  const { t } = useTranslation();
  if (!hasMore) return null;
  return (
    <Center>
      <Button variant="default" loading={loading} onClick={onClick} data-testid="load-more">
        {t('common.loadMore')}
      </Button>
    </Center>
  );
};
