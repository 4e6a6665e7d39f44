import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Style and safety rules. Import boundaries and cycles are checked by
 * server/src/architecture.test.ts, which reads the import graph.
 */
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
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'use named exports' },
        { selector: 'ExportSpecifier[exported.name="default"]', message: 'use named exports' },
      ],
    },
  },
  {
    files: [
      'server/src/services/**',
      'server/src/db/**',
      'server/src/lib/**',
      'server/src/relay/providers/**',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'hono', message: 'only api/, relay routes and app.ts know Hono' }] },
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
    rules: { 'no-restricted-syntax': 'off', '@typescript-eslint/no-unsafe-assignment': 'off' },
  },
);
