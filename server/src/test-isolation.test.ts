import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The suites share one module graph per worker (`isolate: false` in vitest.config.ts), where a
 * module replaced by `vi.mock` would stay real for a file that loads it after another file did. A
 * test file that replaces a module is therefore listed in the config's ISOLATED suites.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SELF = relative(root, fileURLToPath(import.meta.url));

const testFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory())
      return name === 'node_modules' || name === 'dist' ? [] : testFiles(path);
    return /\.test\.tsx?$/.test(name) ? [path] : [];
  });

/** The paths between the brackets of `const ISOLATED = [ … ]` in vitest.config.ts. */
const isolatedSuites = (): string[] => {
  const config = readFileSync(join(root, 'vitest.config.ts'), 'utf8');
  const list = /const ISOLATED = \[([^\]]*)\]/.exec(config)?.[1] ?? '';
  return [...list.matchAll(/'([^']+)'/g)].map((match) => match[1] ?? '');
};

describe('test isolation', () => {
  it('runs every suite that replaces a module in a module graph of its own', () => {
    const mocking = ['contract/src', 'server/src', 'web/src', 'e2e']
      .flatMap((dir) => testFiles(join(root, dir)))
      .map((file) => relative(root, file))
      .filter(
        (path) => path !== SELF && /\bvi\.(?:mock|doMock)\(/.test(readFileSync(join(root, path), 'utf8')),
      );
    expect(mocking.length).toBeGreaterThan(0);
    expect(mocking.filter((path) => !isolatedSuites().includes(path))).toEqual([]);
  });
});
