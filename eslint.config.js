import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/** Import boundaries of docs/architecture: imports flow one way. */
const zones = [
  {
    target: './contract',
    from: ['./server', './web'],
    message: 'contract is pure: it imports nothing of ours',
  },
  { target: './server', from: './web', message: 'the server never imports the console' },
  { target: './web', from: './server', message: 'the console talks to the server over HTTP only' },
  {
    target: './server/src/lib',
    from: [
      './server/src/db',
      './server/src/cache',
      './server/src/services',
      './server/src/api',
      './server/src/relay',
    ],
    message: 'lib holds pure helpers',
  },
  {
    target: './server/src/services',
    from: ['./server/src/api', './server/src/relay', './server/src/app.ts', './server/src/boot.ts'],
    message: 'services are framework-free business rules',
  },
  {
    target: './server/src/api',
    from: ['./server/src/db/database.ts', './server/src/relay'],
    message: 'api routes are thin: validate, call one service, respond',
  },
  {
    target: './server/src/relay/adaptors/!(*.test).ts',
    from: ['./server/src/db', './server/src/cache', './server/src/services', './server/src/api'],
    message: 'adaptors are pure translators',
  },
];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', '*.mjs', 'vitest.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [
        createTypeScriptImportResolver({
          noWarnOnMultipleProjects: true,
          project: ['contract/tsconfig.json', 'server/tsconfig.json', 'web/tsconfig.json'],
          conditionNames: ['@sluice/source', 'types', 'import', 'default'],
        }),
      ],
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'import-x/no-default-export': 'error',
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { zones }],
    },
  },
  {
    files: [
      'server/src/services/**',
      'server/src/db/**',
      'server/src/lib/**',
      'server/src/relay/adaptors/**',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'hono', message: 'only api/ and app.ts know Hono' }] },
      ],
    },
  },
  {
    files: ['**/*.test.ts', '**/test-support/**'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },
  {
    files: ['eslint.config.js', '**/vite.config.ts', 'vitest.config.ts'],
    rules: { 'import-x/no-default-export': 'off', '@typescript-eslint/no-unsafe-assignment': 'off' },
  },
);
