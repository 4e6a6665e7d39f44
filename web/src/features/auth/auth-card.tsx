import { Card, Center, Image, Stack, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { useBranding } from '../../lib/status.js';

/** The narrow centred card of the login, registration and reset screens. */
export const AuthCard = ({
  title,
  children,
  testId,
}: {
  title: ReactNode;
  children: ReactNode;
  testId?: string;
}) => {
  const { logo } = useBranding();
  return (
    <Center py={{ base: 'md', xs: 40 }}>
      <Card w="100%" maw={420} p="xl" data-testid={testId}>
        <Stack gap="md">
          <Stack align="center" gap="xs">
            <Image src={logo} alt="" w={48} h={48} fit="contain" />
            <Title order={3} ta="center">
              {title}
            </Title>
          </Stack>
          {children}
        </Stack>
      </Card>
    </Center>
  );
};
