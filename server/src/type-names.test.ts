import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHANNEL_TYPE_IDS } from '@sluice/contract/channel-types';
import { LOG_TYPE } from '@sluice/contract/statuses';
import { describe, expect, it } from 'vitest';

/**
 * Channel types (and log types) are named, never bare numbers: `CHANNEL_TYPE.anthropic`, not `14`.
 * The catalogue (contract/src/channel-types.ts) is the one place that spells the numbers.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CATALOGUE = 'contract/src/channel-types.ts';
const SELF = relative(root, fileURLToPath(import.meta.url));

const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'dist' ? [] : sources(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });

/** Numbers that name a type: a value that is no type (999, 1.5) names nothing and may stay. */
const NAMED = new Set<number>([...CHANNEL_TYPE_IDS, ...Object.values(LOG_TYPE)]);

const PATTERNS: readonly { pattern: RegExp; sourceOnly?: boolean; what: string }[] = [
  { pattern: /\b(?:type|channel_type)\s*:\s*(\d+)(?![.\d])/g, what: 'a type given as a number' },
  { pattern: /[\w.]*\btype\s*[!=]==?\s*(\d+)(?![.\d])/gi, what: 'a type compared with a number' },
  { pattern: /\b(\d+)\s*[!=]==?\s*[\w.]*type\b/gi, what: 'a type compared with a number' },
  { pattern: /'type',\s*'(?:=|!=|<>)',\s*(\d+)(?![.\d])/g, what: 'a type compared with a number in SQL' },
  { pattern: /\[(\d+)(?:\s*,\s*\d+)*\]\.includes\(/g, what: 'a list of type numbers' },
  { pattern: /^\s+(\d+)\s*:\s/gm, sourceOnly: true, what: 'a table keyed by type numbers' },
];

const offences = (): string[] => {
  const found: string[] = [];
  const files = ['contract/src', 'server/src', 'web/src', 'e2e'].flatMap((dir) => sources(join(root, dir)));
  for (const file of files) {
    const path = relative(root, file);
    if (path === CATALOGUE || path === SELF) continue;
    const isTest = /\.test\.tsx?$/.test(path) || path.includes('test-support/') || path.startsWith('e2e/');
    const text = readFileSync(file, 'utf8');
    for (const { pattern, sourceOnly, what } of PATTERNS) {
      if (sourceOnly && isTest) continue;
      for (const match of text.matchAll(pattern)) {
        if (!NAMED.has(Number(match[1]))) continue;
        const line = text.slice(0, match.index).split('\n').length;
        found.push(`${path}:${line}: ${what}: ${match[0].trim()}`);
      }
    }
  }
  return found;
};

describe('type names', () => {
  it('names every channel type and log type by the contract’s tables, never by a bare number', () => {
    expect(offences()).toEqual([]);
  });
});
