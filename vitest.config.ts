import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@sluice/source'] },
  test: {
    include: ['contract/src/**/*.test.ts', 'server/src/**/*.test.ts', 'web/src/**/*.test.{ts,tsx}'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Suites that share a PostgreSQL or MySQL database take turns; each SQLite suite has its own file.
    fileParallelism: true,
  },
});
