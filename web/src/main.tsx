import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { StatusPage } from './status-page.js';

const root = document.getElementById('root');
if (root)
  createRoot(root).render(
    <StrictMode>
      <StatusPage />
    </StrictMode>,
  );
