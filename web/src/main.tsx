import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import './app/global.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router/dom';
import { loadStatus } from './app/bootstrap.js';
import { Providers } from './app/providers.js';
import { createAppRouter } from './app/router.js';
import { createQueryClient } from './lib/query-client.js';

const queryClient = createQueryClient();
const router = createAppRouter();
void loadStatus();

const root = document.getElementById('root');
if (root)
  createRoot(root).render(
    <StrictMode>
      <Providers queryClient={queryClient}>
        <RouterProvider router={router} />
      </Providers>
    </StrictMode>,
  );
