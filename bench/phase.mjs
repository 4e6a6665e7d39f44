/** One phase's measurements (load, sequential, stream, cold keys), Portkey beside them, and starting a Sluice. */
import { join } from 'node:path';
import { stopChild } from './children.mjs';
import { measureLoadRounds, measureSequential } from './measure.mjs';
import { measurePeers, portkeyTarget, startPortkey } from './peers.mjs';
import { memoryBytes } from './proc-stats.mjs';
import { ROOT_KEY, startSluice } from './sluice-process.mjs';
import { CHAT_BODY, RESULTS, SETTINGS, STREAM_BODY, profile, say } from './bench-settings.mjs';
import { freePort, helperTargets, sluiceTarget } from './bench-helpers.mjs';

/** @typedef {import('./bench-helpers.mjs').Servers} Servers */
/** @typedef {import('./bench-helpers.mjs').Instance} Instance */

/**
 * Every measurement of one phase, against the running processes: the direct call, the bare relay
 * and each Sluice (two when paired, their sequential requests interleaved with the others').
 * @param {Servers} servers
 * @param {{ instance: Instance, child: import('./children.mjs').Child }[]} sluices
 * @param {string[] | undefined} coldKeys  keys never used yet (populated phase)
 * @returns {Promise<import('./report.mjs').PhaseResult>}
 */
export const measurePhase = async (servers, sluices, coldKeys) => {
  const targets = [...helperTargets(servers), ...sluices.map(sluiceTarget)];
  const load = await measureLoadRounds(
    targets,
    {
      key: ROOT_KEY,
      body: CHAT_BODY,
      connections: SETTINGS.connections,
      seconds: SETTINGS.loadSeconds,
      warmupSeconds: SETTINGS.warmupSeconds,
      rounds: SETTINGS.loadRounds,
    },
    say,
  );
  const sequentialOptions = {
    keys: () => ROOT_KEY,
    count: SETTINGS.sequentialCount,
    warmup: SETTINGS.sequentialWarmup,
  };
  say(`sequential: ${SETTINGS.sequentialCount} non-stream requests per target, interleaved`);
  const sequential = await measureSequential(targets, {
    ...sequentialOptions,
    body: CHAT_BODY,
    stream: false,
  });
  say(`sequential: ${SETTINGS.sequentialCount} stream requests per target, interleaved`);
  const stream = await measureSequential(targets, { ...sequentialOptions, body: STREAM_BODY, stream: true });
  const peaks = () =>
    Object.fromEntries(
      sluices.map(({ instance, child }) => [instance.name, memoryBytes(child.pid, 'VmHWM')]),
    );
  const [first] = sluices;
  if (!first) throw new Error('no Sluice to measure');
  /** @type {import('./report.mjs').PhaseResult} */
  const result = {
    load,
    sequential,
    stream,
    memory: {
      sluicePeakRssBytes: memoryBytes(first.child.pid, 'VmHWM'),
      sluiceRssBytes: memoryBytes(first.child.pid, 'VmRSS'),
      barePeakRssBytes: memoryBytes(servers.bare.child.pid, 'VmHWM'),
      doublePeakRssBytes: memoryBytes(servers.double.child.pid, 'VmHWM'),
      peakRssBytesOf: peaks(),
    },
  };
  if (coldKeys) {
    say(`cold keys: ${SETTINGS.coldKeys} sequential requests, each with a key never used before`);
    result.coldKeys = await measureSequential(
      targets.filter((target) => target.name !== 'bare'),
      {
        keys: (round) => (round < 0 ? ROOT_KEY : `sk-${coldKeys[round] ?? ''}`),
        count: Math.min(SETTINGS.coldKeys, coldKeys.length),
        warmup: 0,
        body: CHAT_BODY,
        stream: false,
      },
    );
    result.memory.sluicePeakRssBytes = memoryBytes(first.child.pid, 'VmHWM');
    result.memory.peakRssBytesOf = peaks();
  }
  return result;
};

/**
 * Portkey started beside the others, measured with them, stopped.
 * @param {Servers} servers
 * @param {import('./measure.mjs').Target[]} targets  direct, bare, Sluice
 */
export const measureWithPortkey = async (servers, targets) => {
  const port = await freePort();
  const child = await startPortkey(RESULTS, port, join(RESULTS, 'portkey.log'), say);
  try {
    return await measurePeers(
      [...targets, portkeyTarget(port, child.pid, servers.double.origin)],
      { key: ROOT_KEY, ...SETTINGS },
      say,
    );
  } finally {
    await stopChild(child);
  }
};

/**
 * Starts one Sluice of the run.
 * @param {Instance} instance
 * @param {string} phase
 */
export const startInstance = (instance, phase) => {
  const nodeFlags = [
    ...instance.flags,
    ...(profile
      ? // One profile per thread (Node names them CPU.<date>.<time>.<pid>.<thread>.<seq>): the relay's
        // is thread 0; the SQLite worker threads have their own.
        ['--cpu-prof', `--cpu-prof-dir=${join(RESULTS, 'profiles', phase, instance.name)}`]
      : []),
  ];
  say(`starting ${instance.name} (${phase})`);
  return startSluice({
    port: instance.port,
    sqlitePath: instance.sqlitePath,
    logFile: instance.logFile,
    nodeFlags,
    env: instance.env,
    ...(instance.main ? { main: instance.main } : {}),
    ...(instance.node ? { node: instance.node } : {}),
  });
};
