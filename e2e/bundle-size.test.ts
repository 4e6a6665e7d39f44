import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { initialScripts } from './support/bundle.js';
import { WEB_DIST } from './support/harness.js';

describe('console bundle', () => {
  it('loads at most 300 KB of gzipped JavaScript before the first screen', () => {
    const scripts = initialScripts(readFileSync(join(WEB_DIST, 'index.html'), 'utf8'));
    expect(scripts.length).toBeGreaterThan(0);
    const bytes = scripts.reduce((sum, file) => sum + gzipSync(readFileSync(join(WEB_DIST, file))).length, 0);
    console.info(`initial JavaScript: ${scripts.length} files, ${(bytes / 1024).toFixed(1)} KB gzipped`);
    expect(bytes).toBeLessThanOrEqual(300 * 1024);
  });
});
