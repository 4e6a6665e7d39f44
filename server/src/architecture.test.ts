import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** The import boundaries of the architecture: imports flow one way; no cycles in the server. */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'dist' ? [] : sources(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });

const IMPORT = /^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/gm;

/** Every file's imports, resolved to repository paths (`@sluice/contract/x` → contract/src/x.ts). */
const graph = (): Map<string, string[]> => {
  const edges = new Map<string, string[]>();
  for (const file of ['contract/src', 'server/src', 'web/src'].flatMap((dir) => sources(join(root, dir)))) {
    const text = readFileSync(file, 'utf8');
    const targets: string[] = [];
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? '';
      if (specifier.startsWith('.'))
        targets.push(relative(root, resolve(dirname(file), specifier)).replace(/\.js$/, '.ts'));
      else if (specifier.startsWith('@sluice/contract/'))
        targets.push(`contract/src/${specifier.slice(17)}.ts`);
      else if (specifier.startsWith('@sluice/')) targets.push(specifier);
      else targets.push(`npm:${specifier}`);
    }
    edges.set(relative(root, file), targets);
  }
  return edges;
};

const RULES: readonly { from: RegExp; to: RegExp; why: string }[] = [
  {
    from: /^contract\/(?!.*\.test\.ts$)/,
    to: /^(server\/|web\/|@sluice\/|npm:(?!zod$))/,
    why: 'contract is pure: zod and itself only (its tests also use vitest)',
  },
  { from: /^server\//, to: /^(web\/|@sluice\/web)/, why: 'the server never imports the console' },
  {
    from: /^web\//,
    to: /^(server\/|@sluice\/server)/,
    why: 'the console talks to the server over HTTP only',
  },
  {
    from: /^server\/src\/lib\//,
    to: /^server\/src\/(db|cache|services|api|relay)\//,
    why: 'lib holds pure helpers',
  },
  {
    from: /^server\/src\/services\/(?!.*\.test\.ts$)/,
    to: /^(server\/src\/(api|relay)\/|server\/src\/(app|boot)\.ts|npm:hono)/,
    why: 'services are framework-free',
  },
  {
    from: /^server\/src\/api\/(?!.*\.test\.ts$)/,
    to: /^server\/src\/(relay\/|db\/database\.ts)/,
    why: 'api routes are thin and never reach the relay',
  },
  {
    from: /^server\/src\/relay\/providers\/(?!.*\.test\.ts$)/,
    to: /^(server\/src\/(db|cache|services|api)\/|npm:hono)/,
    why: 'adaptors are pure translators',
  },
];

describe('architecture', () => {
  const edges = graph();

  it('keeps every import boundary', () => {
    const broken: string[] = [];
    for (const [file, targets] of edges)
      for (const target of targets)
        for (const rule of RULES)
          if (rule.from.test(file) && rule.to.test(target)) broken.push(`${file} → ${target}: ${rule.why}`);
    expect(broken).toEqual([]);
  });

  it('has no import cycle in the server', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...path.slice(path.indexOf(file)), file].join(' → '));
        return;
      }
      state.set(file, 'open');
      for (const target of edges.get(file) ?? [])
        if (target.startsWith('server/') && edges.has(target)) visit(target, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of edges.keys()) if (file.startsWith('server/')) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it('reads real files', () => {
    expect(edges.size).toBeGreaterThan(50);
    expect(edges.get('server/src/app.ts')).toContain('server/src/api/api-routes.ts');
  });
});
