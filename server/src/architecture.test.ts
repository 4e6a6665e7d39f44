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

const NOT_TEST = '(?!.*\\.test\\.tsx?$)(?!server\\/src\\/test-support\\/)';
const from = (path: string) => new RegExp(`^(?=${path})${NOT_TEST}`);

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
    to: /^server\/src\/(db|cache|services|api|relay|channels|http)\//,
    why: 'lib holds pure helpers',
  },
  {
    from: from('server\\/src\\/services\\/'),
    to: /^(server\/src\/(api|relay|channels|http)\/|server\/src\/(app|boot)\.ts|npm:hono)/,
    why: 'services are framework-free',
  },
  {
    from: from('server\\/src\\/http\\/'),
    to: /^server\/src\/(api|relay|channels)\//,
    why: 'http/ holds what api/ and relay/ share, and depends on neither',
  },
  {
    from: from('server\\/src\\/api\\/'),
    to: /^server\/src\/(relay\/|channels\/|db\/database\.ts)/,
    why: 'api routes are thin and never reach the relay or the channel jobs (they get ports from boot.ts)',
  },
  {
    from: from('server\\/src\\/relay\\/'),
    to: /^server\/src\/(api|channels)\//,
    why: 'the relay never imports the console API or the channel jobs (failures go out through callbacks wired in boot.ts)',
  },
  {
    from: from('server\\/src\\/relay\\/providers\\/'),
    to: /^(server\/src\/(?!lib\/|relay\/providers\/)|npm:hono)/,
    why: 'providers are pure translators: the contract, lib and the provider contract only',
  },
];

/** `server/src/relay/providers/<name>/…` → name; undefined for the providers' own top-level files. */
const providerFolder = (path: string): string | undefined =>
  /^server\/src\/relay\/providers\/([^/]+)\//.exec(path)?.[1];

/** `web/src/features/<name>/…` → name. */
const featureFolder = (path: string): string | undefined => /^web\/src\/features\/([^/]+)\//.exec(path)?.[1];

const isTest = (path: string) => /\.test\.tsx?$/.test(path) || path.startsWith('server/src/test-support/');

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

  it('reaches a provider folder only through its index.ts', () => {
    const broken: string[] = [];
    for (const [file, targets] of edges) {
      if (isTest(file)) continue;
      for (const target of targets) {
        const folder = providerFolder(target);
        if (folder === undefined || providerFolder(file) === folder) continue;
        if (target !== `server/src/relay/providers/${folder}/index.ts`) broken.push(`${file} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('reaches a client format folder only through its index.ts', () => {
    const clientFolder = (path: string) => /^server\/src\/relay\/clients\/([^/]+)\//.exec(path)?.[1];
    const broken: string[] = [];
    for (const [file, targets] of edges) {
      if (isTest(file)) continue;
      for (const target of targets) {
        const folder = clientFolder(target);
        if (folder === undefined || clientFolder(file) === folder) continue;
        if (target !== `server/src/relay/clients/${folder}/index.ts`) broken.push(`${file} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('never lets a console feature import another feature', () => {
    const broken: string[] = [];
    for (const [file, targets] of edges) {
      const own = featureFolder(file);
      if (own === undefined) continue;
      for (const target of targets) {
        const other = featureFolder(target);
        if (other !== undefined && other !== own) broken.push(`${file} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('keeps the relay in its rooms: no file loose at its top level', () => {
    const loose = readdirSync(join(root, 'server/src/relay')).filter(
      (name) => !statSync(join(root, 'server/src/relay', name)).isDirectory() && name !== 'README.md',
    );
    expect(loose).toEqual([]);
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
