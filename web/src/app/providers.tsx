import { MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';
import { i18n } from '../i18n/i18n.js';
import { toastPosition } from '../lib/toast.js';
import { colorSchemeManager, DEFAULT_COLOR_SCHEME, theme } from './theme.js';

/** Mantine (theme, remembered light/dark, else the browser's), toasts, React Query and translations. */
export const Providers = ({ queryClient, children }: { queryClient: QueryClient; children: ReactNode }) => (
  <I18nextProvider i18n={i18n}>
    <MantineProvider
      theme={theme}
      colorSchemeManager={colorSchemeManager}
      defaultColorScheme={DEFAULT_COLOR_SCHEME}
    >
      <Notifications position={toastPosition()} zIndex={1000} limit={5} />
      <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
    </MantineProvider>
  </I18nextProvider>
);
