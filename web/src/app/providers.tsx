import { MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';
import { i18n } from '../i18n/i18n.js';
import { toastPosition } from '../lib/toast.js';
import { colorSchemeManager, theme } from './theme.js';

/** Mantine (theme, remembered light/dark), toasts, React Query and translations. */
export const Providers = ({ queryClient, children }: { queryClient: QueryClient; children: ReactNode }) => (
  <I18nextProvider i18n={i18n}>
    <MantineProvider theme={theme} colorSchemeManager={colorSchemeManager} defaultColorScheme="light">
      <Notifications position={toastPosition()} zIndex={1000} limit={5} />
      <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
    </MantineProvider>
  </I18nextProvider>
);
