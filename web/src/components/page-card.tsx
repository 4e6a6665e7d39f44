import { Card, Group, Stack, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** A screen's card: a heading with optional actions on the right, then the content. */
export const PageCard = ({
  title,
  actions,
  children,
  testId,
}: {
  title: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  testId?: string;
}) => (
  <Card data-testid={testId} p={{ base: 'sm', xs: 'lg' }}>
    <Stack gap="md">
      <Group justify="space-between" align="center" gap="sm">
        <Title order={3}>{title}</Title>
        {actions && (
          <Group gap="xs" wrap="wrap">
            {actions}
          </Group>
        )}
      </Group>
      {children}
    </Stack>
  </Card>
);
