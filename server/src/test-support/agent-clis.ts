import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A coding-agent CLI the scenarios run: its npm package, pinned version and command. */
export interface AgentCli {
  readonly name: string;
  readonly pkg: string;
  readonly version: string;
  readonly bin: string;
}

export const CLAUDE_CODE: AgentCli = {
  name: 'claude-code',
  pkg: '@anthropic-ai/claude-code',
  version: '2.1.197',
  bin: 'claude',
};
export const CODEX: AgentCli = { name: 'codex', pkg: '@openai/codex', version: '0.169.0', bin: 'codex' };
export const GEMINI_CLI: AgentCli = {
  name: 'gemini-cli',
  pkg: '@google/gemini-cli',
  version: '0.61.0',
  bin: 'gemini',
};

/** What a finished (or killed) process left. */
export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
  readonly timedOut: boolean;
}

export interface RunOptions {
  readonly env: Record<string, string>;
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly stdin?: string;
}

/**
 * Runs a command in a process group of its own, bounded by a timeout: on timeout the group it leads
 * (the command and whatever it spawned, by its PID) is killed, nothing else. Never rejects on a
 * non-zero exit; the caller reads `code` and the output.
 */
export const runBounded = (command: string, args: readonly string[], options: RunOptions): Promise<CliRun> =>
  new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.stdin ?? '');
    let timedOut = false;
    let closed = false;
    const killGroup = (signal: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // the group is already gone
      }
    };
    let hardKill: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup('SIGTERM');
      hardKill = setTimeout(() => {
        if (!closed) killGroup('SIGKILL');
      }, 2_000);
    }, options.timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      closed = true;
      clearTimeout(timer);
      clearTimeout(hardKill);
      // Whatever the command left running in its group (a relaunched child, a helper) goes too.
      killGroup('SIGKILL');
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        ms: Math.round(performance.now() - started),
        timedOut,
      });
    });
  });

/** Only what a CLI needs from the machine: no provider keys or configuration of the host leak in. */
export const baseEnv = (home: string): Record<string, string> => ({
  PATH: process.env['PATH'] ?? '/usr/bin:/bin',
  HOME: home,
  TMPDIR: tmpdir(),
  LANG: 'C.UTF-8',
  TERM: 'dumb',
  NO_COLOR: '1',
  CI: '1',
});

/** A run as a failure message shows it: exit, and the end of both outputs, exactly. */
export const describeRun = (run: CliRun): string =>
  `exit ${String(run.code)}${run.signal ? ` (${run.signal})` : ''}${run.timedOut ? ' after timing out' : ''}\n` +
  `stdout: ${run.stdout.slice(-4000)}\nstderr: ${run.stderr.slice(-4000)}`;

const MARKER = '.sluice-installed';

/** npm's settings from the machine are kept (registry, cache, proxy); a parent npm run's are not. */
const NPM_SETTINGS =
  /^npm_config_(registry|cache|userconfig|globalconfig|https?_proxy|proxy|noproxy|strict_ssl|cafile|ca)$/i;

const npmEnv = (): Record<string, string> => {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined && (!/^npm_/i.test(name) || NPM_SETTINGS.test(name))) env[name] = value;
  return env;
};

/**
 * Installs a CLI once per version into `<os temp>/sluice-agent-clis/<name>@<version>` and answers
 * its binary's path. The folder is reused by later runs (the install fetches ~250 MB for Claude
 * Code's native binary); an install is done in a fresh folder and renamed into place only once the
 * binary answered `--version`, so a broken or half-done install is never reused. Fails with npm's
 * or the binary's exact output.
 */
export const installCli = async (cli: AgentCli): Promise<string> => {
  const root = join(tmpdir(), 'sluice-agent-clis');
  const folder = join(root, `${cli.name}@${cli.version}`);
  const binary = join(folder, 'node_modules', '.bin', cli.bin);
  if (existsSync(join(folder, MARKER)) && existsSync(binary)) return binary;
  await mkdir(root, { recursive: true });
  const staging = await mkdtemp(join(root, `${cli.name}@${cli.version}-staging-`));
  try {
    await writeFile(join(staging, 'package.json'), JSON.stringify({ name: 'agent-cli', private: true }));
    const env = { ...npmEnv(), npm_config_update_notifier: 'false' };
    const install = await runBounded(
      'npm',
      ['install', '--no-audit', '--no-fund', '--no-save', `${cli.pkg}@${cli.version}`],
      { env, cwd: staging, timeoutMs: 240_000 },
    );
    if (install.code !== 0) throw new Error(`npm install ${cli.pkg}@${cli.version}: ${describeRun(install)}`);
    const stagedBinary = join(staging, 'node_modules', '.bin', cli.bin);
    const version = await runBounded(stagedBinary, ['--version'], {
      env: baseEnv(staging),
      cwd: staging,
      timeoutMs: 30_000,
    });
    if (version.code !== 0 || !version.stdout.includes(cli.version))
      throw new Error(
        `${cli.bin} --version after installing ${cli.pkg}@${cli.version}: ${describeRun(version)}`,
      );
    await writeFile(join(staging, MARKER), version.stdout);
    // A folder without the marker is what a killed install left: replaced. One with it (another run
    // finished first) makes the rename fail, and that run's install is used.
    if (existsSync(folder) && !existsSync(join(folder, MARKER)))
      await rm(folder, { recursive: true, force: true });
    await rename(staging, folder);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    // Another run may have installed the same version meanwhile.
    if (existsSync(join(folder, MARKER)) && existsSync(binary)) return binary;
    throw error;
  }
  return binary;
};

/** A temporary folder a CLI may use as its HOME, config dir and working directory. */
export const scratchHome = async (prefix: string): Promise<{ path: string; remove(): Promise<void> }> => {
  const path = await mkdtemp(join(tmpdir(), `sluice-${prefix}-`));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
};
