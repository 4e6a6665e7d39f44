import {
  AppShell,
  Box,
  Burger,
  Container,
  Group,
  Image,
  Loader,
  NavLink,
  ScrollArea,
  Text,
  UnstyledButton,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Outlet, useLocation, useNavigation } from 'react-router';
import { useSession } from '../lib/session.js';
import { useBranding, useStatus } from '../lib/status.js';
import { applyBranding } from './bootstrap.js';
import { Footer } from './footer.js';
import { HeaderActions } from './header-actions.js';
import { isActiveItem, visibleNavItems } from './nav-items.js';
import { LanguageMenu, ThemeToggle } from './preference-switches.js';

/**
 * The page frame: a header (burger on mobile, system name and logo, language, theme, account), the
 * navigation (a side bar; on ≤600 px a menu opened by the burger), the screen and the footer.
 */
export const Layout = () => {
  const { t } = useTranslation();
  const [opened, { toggle, close }] = useDisclosure(false);
  const { pathname } = useLocation();
  const navigation = useNavigation();
  const session = useSession();
  const branding = useBranding();
  const status = useStatus();
  const items = visibleNavItems({
    isAdmin: session.isAdmin,
    chatLink: branding.chatLink,
    signedIn: session.user !== undefined,
    pricingPublic: status?.pricing_public === true,
  });

  useEffect(() => applyBranding(branding.systemName, branding.logo), [branding.systemName, branding.logo]);
  useEffect(close, [pathname, close]);

  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 200, breakpoint: 'xs', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap" miw={0} style={{ flex: 1 }}>
            <Burger
              opened={opened}
              onClick={toggle}
              hiddenFrom="xs"
              size="sm"
              aria-label={t('nav.menu')}
              data-testid="nav-burger"
            />
            <UnstyledButton component={Link} to="/" aria-label={branding.systemName} miw={0}>
              <Group gap={8} wrap="nowrap">
                <Image src={branding.logo} alt="" w={28} h={28} fit="contain" />
                <Text fw={700} size="lg" truncate maw={{ base: 140, xs: 240 }}>
                  {branding.systemName}
                </Text>
              </Group>
            </UnstyledButton>
            {navigation.state !== 'idle' && <Loader size="xs" aria-label={t('common.loading')} />}
          </Group>
          <HeaderActions />
        </Group>
      </AppShell.Header>

      <AppShell.Navbar p="xs" aria-label={t('nav.label')}>
        <AppShell.Section grow component={ScrollArea}>
          <nav data-testid="nav">
            {items.map((item) => (
              <NavLink
                key={item.key}
                component={Link}
                to={item.path}
                label={t(`nav.${item.key}`)}
                leftSection={<item.icon size={18} stroke={1.6} />}
                active={isActiveItem(item, pathname)}
                variant="light"
                style={{ borderRadius: 'var(--mantine-radius-md)' }}
              />
            ))}
          </nav>
        </AppShell.Section>
        <AppShell.Section
          hiddenFrom="xs"
          pt="xs"
          style={{ borderTop: '1px solid var(--app-shell-border-color)' }}
        >
          <Group gap="xs">
            <LanguageMenu />
            <ThemeToggle />
          </Group>
        </AppShell.Section>
      </AppShell.Navbar>

      <AppShell.Main>
        <Container size="xl" px={0}>
          <Box mih="calc(100dvh - 56px - 120px)">
            <Outlet />
          </Box>
          <Footer />
        </Container>
      </AppShell.Main>
    </AppShell>
  );
};
