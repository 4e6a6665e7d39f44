import { defaultClientConditions, defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Workspace packages resolve to their TypeScript sources in tests (no build needed first).
  resolve: { conditions: ['@sluice/source', ...defaultClientConditions] },
  ssr: { resolve: { conditions: ['@sluice/source', ...defaultServerConditions] } },
  test: {
    include: [
      'contract/src/**/*.test.ts',
      'server/src/**/*.test.ts',
      'web/src/**/*.test.{ts,tsx}',
      'e2e/**/*.test.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
