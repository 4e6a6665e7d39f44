import { spawn, spawnSync } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import process from 'node:process';
import { clearTimeout, setTimeout } from 'node:timers';

/**
 * @typedef {object} Child
 * @property {string} name
 * @property {number} pid
 * @property {import('node:child_process').ChildProcess} process
 * @property {Promise<number | null>} exited  resolves with the exit code (null when killed by a signal)
 * @property {{ value: boolean }} stopping  set before an expected exit
 */

/** @type {Map<number, { value: boolean }>} every child this run started and not yet exited: pid → its stopping flag */
const running = new Map();

/**
 * BENCH_PIN=1: the relays (each Sluice, the bare relay, a peer) run on core 1, the bench's own client
 * and the upstream double on core 0 (`taskset`), so that a relay has one core to itself and its
 * latency is not another process's time slice ("on one core", as issue 22's goals are stated).
 */
export const PINNED = process.env['BENCH_PIN'] === '1';
const RELAY_CORE = '1';
const CLIENT_CORE = '0';

/** Pins this process (every thread: the bench's client) to the client's core when BENCH_PIN=1. */
export const pinBench = () => {
  if (!PINNED) return;
  const result = spawnSync('taskset', ['-a', '-p', '-c', CLIENT_CORE, String(process.pid)], {
    stdio: 'ignore',
  });
  if (result.status !== 0) throw new Error('BENCH_PIN=1: taskset (util-linux) could not pin the bench');
};

/**
 * Starts `node <args>` as a child process and remembers its pid so it is always killed at the end.
 * Output goes to `logFile` when given (Sluice logs every request), else is inherited.
 * @param {string} name
 * @param {string[]} args  node flags, then the script and its arguments
 * @param {{ env?: NodeJS.ProcessEnv, ipc?: boolean, logFile?: string, cwd?: string, node?: string, relay?: boolean }} [options]
 *   `node`: another Node binary than this one's; `relay`: a relay under test (its core when BENCH_PIN=1)
 * @returns {Child}
 */
export const startNode = (name, args, options = {}) => {
  const output = options.logFile === undefined ? 'inherit' : openSync(options.logFile, 'a');
  const stdio = /** @type {import('node:child_process').StdioOptions} */ ([
    'ignore',
    output,
    output,
    ...(options.ipc ? ['ipc'] : []),
  ]);
  const node = options.node ?? process.execPath;
  // taskset execs node in its own process: the pid is node's, and every thread inherits the core.
  const core = options.relay ? RELAY_CORE : CLIENT_CORE;
  const [command, argv] = PINNED ? ['taskset', ['-c', core, node, ...args]] : [node, args];
  const child = spawn(command, argv, {
    env: options.env ?? process.env,
    cwd: options.cwd,
    stdio,
  });
  if (typeof output === 'number') closeSync(output);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${name}`);
  const stopping = { value: false };
  running.set(pid, stopping);
  /** @type {Promise<number | null>} */
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(pid);
      if (!stopping.value)
        process.stderr.write(`bench: ${name} (pid ${pid}) exited unexpectedly: ${code ?? signal}\n`);
      resolve(code);
    });
  });
  return { name, pid, process: child, exited, stopping };
};

/**
 * The first IPC message of a child (its listening port), or an error when it exits or is too slow.
 * @param {Child} child
 * @param {number} timeoutMs
 * @returns {Promise<unknown>}
 */
export const firstMessage = (child, timeoutMs) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${child.name} did not report in time`)), timeoutMs);
    child.process.once('message', (message) => {
      clearTimeout(timer);
      resolve(message);
    });
    child.exited.then(
      () => {
        clearTimeout(timer);
        reject(new Error(`${child.name} exited before it was ready`));
      },
      () => undefined,
    );
  });

/**
 * Stops one child by its pid: the signal first, SIGKILL when it has not exited after `timeoutMs`.
 * @param {Child} child
 * @param {NodeJS.Signals} [signal]
 * @param {number} [timeoutMs]
 * @returns {Promise<void>}
 */
export const stopChild = async (child, signal = 'SIGTERM', timeoutMs = 15_000) => {
  child.stopping.value = true;
  if (!running.has(child.pid)) return;
  process.kill(child.pid, signal);
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  /** @type {Promise<'late'>} */
  const late = new Promise((resolve) => {
    timer = setTimeout(resolve, timeoutMs, 'late');
  });
  const outcome = await Promise.race([child.exited, late]);
  clearTimeout(timer);
  if (outcome === 'late' && running.has(child.pid)) {
    process.kill(child.pid, 'SIGKILL');
    await child.exited;
  }
};

/** Kills every child still running, each by its own pid (synchronous: safe in an exit handler). */
export const killAll = () => {
  for (const [pid, stopping] of running) {
    stopping.value = true;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  running.clear();
};
