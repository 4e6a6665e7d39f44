import { defaultClientConditions, defaultServerConditions } from 'vite';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Suites that measure latency or lag against a bound (a relay's p99 during a log cleanup, the
 * billing lag): they run after the others, alone, so that no other suite's work is in their figures.
 */
const QUIET = [
  'server/src/api/log-console-load.e2e.test.ts',
  'server/src/relay/metering/billing-lag.test.ts',
];

/**
 * Suites that replace a module (`vi.mock`): a module graph shared between files (`isolate: false`
 * below) would keep the real module for whichever file loaded it first, so these load their own.
 */
const ISOLATED = [
  'server/src/relay/providers/bedrock/bedrock-adaptor.test.ts',
  'server/src/relay/providers/bedrock/bedrock-conformance.test.ts',
];

const INCLUDE = [
  'contract/src/**/*.test.ts',
  'server/src/**/*.test.ts',
  'web/src/**/*.test.{ts,tsx}',
  'e2e/**/*.test.ts',
];

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
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // `expect.poll` waits for what a browser or a background job shows: on a loaded machine a page's
    // first lists can take more than Vitest's default second to arrive.
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    // Most suites wait (on databases, child processes, a browser, timers) more than they compute:
    // two at a time on a 2-core machine, where Vitest's default would run one.
    maxWorkers: 2,
    // Each worker runs its files one after another in one module graph instead of loading the
    // server's modules again for every file (about 1.3 s a file, a third of the suite's time). So a
    // test file must leave no global behind: restore fake timers, stubbed globals and env it sets.
    isolate: false,
    projects: [
      {
        extends: true,
        test: {
          name: 'suites',
          include: INCLUDE,
          exclude: [...configDefaults.exclude, ...QUIET, ...ISOLATED],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'isolated', include: ISOLATED, isolate: true, sequence: { groupOrder: 0 } },
      },
      { extends: true, test: { name: 'quiet', include: QUIET, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
