import { defaultClientConditions, defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Workspace packages resolve to their TypeScript sources in tests (no build needed first).
  resolve: { conditions: ['@sluice/source', ...defaultClientConditions] },
  // Without `module`: Vitest hands these conditions to Node, and under `module` the AWS SDK's Smithy
  // packages resolve to their ES builds, whose extension-less imports Node cannot load.
  ssr: {
    resolve: {
      conditions: ['@sluice/source', ...defaultServerConditions.filter((name) => name !== 'module')],
    },
  },
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
