import { Button, Group, Menu, Text } from '@mantine/core';
import { IconChevronDown, IconLogout, IconUser } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { api } from '../lib/api-client.js';
import { truncate } from '../lib/format.js';
import { SIGNED_OUT_STATE, useSession } from '../lib/session.js';
import { showSuccess } from '../lib/toast.js';
import { LanguageMenu, ThemeToggle } from './preference-switches.js';

/**
 * Language and theme switches (in the menu on mobile), then the account: login (and register on
 * mobile) or the user menu with logout.
 */
export const HeaderActions = () => {
  const { t } = useTranslation();
  const session = useSession();
  const navigate = useNavigate();
  const logout = useMutation({
    mutationFn: () => api.send('GET', '/api/user/logout'),
    onSettled: async () => {
      showSuccess(t('auth.logoutSuccess'));
      await navigate('/login', { state: SIGNED_OUT_STATE });
    },
  });

  return (
    <Group gap={6} wrap="nowrap">
      <Group gap={6} wrap="nowrap" visibleFrom="xs">
        <LanguageMenu />
        <ThemeToggle />
      </Group>
      {session.user ? (
        <Menu position="bottom-end" withinPortal>
          <Menu.Target>
            <Button
              variant="subtle"
              size="compact-md"
              leftSection={<IconUser size={16} />}
              rightSection={<IconChevronDown size={14} />}
              data-testid="user-menu"
            >
              <Text inherit maw={{ base: 90, xs: 160 }} truncate>
                {truncate(session.user.username)}
              </Text>
            </Button>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Item component={Link} to="/setting" leftSection={<IconUser size={14} />}>
              {t('nav.setting')}
            </Menu.Item>
            <Menu.Item
              color="red"
              leftSection={<IconLogout size={14} />}
              onClick={() => logout.mutate()}
              data-testid="logout"
            >
              {t('header.logout')}
            </Menu.Item>
          </Menu.Dropdown>
        </Menu>
      ) : (
        <Group gap={6} wrap="nowrap">
          <Button component={Link} to="/login" variant="subtle" size="compact-md" data-testid="login-link">
            {t('header.login')}
          </Button>
          <Button
            component={Link}
            to="/register"
            size="compact-md"
            hiddenFrom="xs"
            data-testid="register-button"
          >
            {t('header.register')}
          </Button>
        </Group>
      )}
    </Group>
  );
};
