import { Button, Center, Code, Loader, Stack, Text, Title } from '@mantine/core';
import { IconError404, IconLock, IconAlertTriangle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link, isRouteErrorResponse, useRouteError } from 'react-router';

/** Shown while a lazy screen loads. */
export const PageLoader = () => {
  const { t } = useTranslation();
  return (
    <Center py={80}>
      <Loader aria-label={t('common.loading')} />
    </Center>
  );
};

/** Spec §2: any unknown path. */
export const NotFoundScreen = () => {
  const { t } = useTranslation();
  return (
    <Stack align="center" py={60} gap="sm" data-testid="not-found">
      <IconError404 size={64} stroke={1.2} color="var(--mantine-color-dimmed)" />
      <Title order={2}>{t('notFound.title')}</Title>
      <Text c="dimmed" ta="center">
        {t('notFound.hint')}
      </Text>
      <Button component={Link} to="/" variant="light">
        {t('notFound.home')}
      </Button>
    </Stack>
  );
};

/** An admin route opened by a signed-in ordinary user. */
export const ForbiddenScreen = () => {
  const { t } = useTranslation();
  return (
    <Stack align="center" py={60} gap="sm" data-testid="forbidden">
      <IconLock size={56} stroke={1.2} color="var(--mantine-color-dimmed)" />
      <Title order={2}>{t('forbidden.title')}</Title>
      <Text c="dimmed" ta="center">
        {t('forbidden.hint')}
      </Text>
    </Stack>
  );
};

/** The router's failure page (spec §8): 'Unexpected Application Error!' and what failed. */
export const RouterErrorPage = () => {
  const error = useRouteError();
  const { t } = useTranslation();
  const detail = isRouteErrorResponse(error)
    ? `${error.status} ${error.statusText}`
    : error instanceof Error
      ? error.message
      : String(error);
  return (
    <Stack align="center" py={60} gap="sm" role="alert" data-testid="router-error">
      <IconAlertTriangle size={56} stroke={1.2} color="var(--mantine-color-red-6)" />
      <Title order={2}>Unexpected Application Error!</Title>
      <Code block maw="100%" style={{ whiteSpace: 'pre-wrap' }}>
        {detail}
      </Code>
      <Button variant="light" onClick={() => globalThis.location.reload()}>
        {t('common.reload')}
      </Button>
    </Stack>
  );
};
