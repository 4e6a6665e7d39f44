/**
 * The end of a run: the figures derived, the verdicts, the JSON written to bench/results/latest.json
 * and the text printed.
 */
import { join } from 'node:path';
import process from 'node:process';
import { clientFormatTable, deriveClientFormats } from './client-formats.mjs';
import { PORTKEY, peersTable } from './peers.mjs';
import { soakTable } from './soak.mjs';
import { switchesOf } from './limits.mjs';
import { machine } from './proc-stats.mjs';
import { promptSweepTable } from './prompt-sweep.mjs';
import { derive, verdicts } from './derive.mjs';
import { pairedTable, phaseTable, slowMachineNote, verdictTable } from './report.mjs';
import { BENCH_MODEL } from './sluice-process.mjs';
import { concurrencyTable } from './concurrency.mjs';
import { floodTable, jitterTable, SLOW_GAP_MS } from './sweeps.mjs';

/**
 * @typedef {object} RunResult
 * @property {import('./report.mjs').PhaseResult | undefined} phase
 * @property {import('./client-formats.mjs').FormatResult | undefined} formats
 * @property {import('./prompt-sweep.mjs').SweepPoint[] | undefined} prompts
 * @property {Awaited<ReturnType<typeof import('./concurrency.mjs').measureConcurrency>> | undefined} concurrency
 * @property {Awaited<ReturnType<typeof import('./sweeps.mjs').measureJitter>> | undefined} jitter
 * @property {Awaited<ReturnType<typeof import('./sweeps.mjs').measureFlood>> | undefined} flood
 * @property {Awaited<ReturnType<typeof import('./peers.mjs').measurePeers>> | undefined} peers
 * @property {Awaited<ReturnType<typeof import('./soak.mjs').measureSoak>> | undefined} soak
 * @property {Record<string, { relayAnswers: number, consumeLogRows: number }>} billing
 */

/**
 * @param {{ relayAnswers: number, consumeLogRows: number } | undefined} billing
 * @returns {string}
 */
const billingLine = (billing) =>
  billing ? `${billing.relayAnswers} relay answers / ${billing.consumeLogRows} log rows` : 'n/a';

/**
 * @param {{ name: string, limits: import('./limits.mjs').LimitKind }[]} instances
 * @returns {string}
 */
const limitsLine = (instances) => {
  const on = instances.filter((instance) => instance.limits !== 'off').map((instance) => instance.name);
  return on.length === 0 ? 'off' : on.length === instances.length ? 'on' : `on for ${on.join(', ')} only`;
};

/**
 * @param {object} run
 * @param {number} run.started  Date.now() at the start
 * @param {{ cpus: number, loadAverage: number[] }} run.before  the machine at the start
 * @param {{ quick: boolean, connections: number, populate: { tokens: number, channels: number, logs: number } } & Record<string, unknown>} run.settings
 * @param {{ name: string, main: string | undefined, env: Record<string, string>, node: string | undefined, flags: string[], routing: { channels: number, affinity: boolean }, limits: import('./limits.mjs').LimitKind, redisUrl: string | undefined }[]} run.instances
 * @param {RunResult} run.base
 * @param {RunResult | undefined} run.populated
 * @param {import('./populate.mjs').PopulateResult | undefined} run.filled
 * @param {boolean} run.paired
 * @param {boolean} run.profile
 * @param {string} run.resultsDir
 */
export const summarize = (run) => {
  const { base, populated, settings, instances } = run;
  const core = base.phase && populated?.phase ? { base: base.phase, populated: populated.phase } : undefined;
  const derived = core ? { base: derive(core.base), populated: derive(core.populated) } : undefined;
  const checks = derived ? verdicts(derived.base, derived.populated) : undefined;
  const now = machine();
  const results = {
    measuredAt: new Date().toISOString(),
    runSeconds: Math.round((Date.now() - run.started) / 1000),
    machine: { ...now, loadAverageAtStart: run.before.loadAverage, node: process.version },
    settings: {
      ...settings,
      sluices: instances.map(({ name, main, env, node, flags, routing, limits, redisUrl }) => ({
        name,
        main: main ?? 'server/dist/main.js',
        env,
        node: node ?? process.execPath,
        flags,
        routing,
        limits,
        redisUrl: redisUrl ?? null,
      })),
    },
    phases: core && {
      base: { ...core.base, billing: base.billing },
      populated: {
        ...core.populated,
        billing: populated?.billing,
        populate: run.filled && { rows: run.filled.rows, seconds: run.filled.seconds },
      },
    },
    derived,
    verdicts: checks,
    clientFormats: base.formats && { ...base.formats, derived: deriveClientFormats(base.formats) },
    prompts: base.prompts,
    concurrency: base.concurrency,
    jitter: base.jitter,
    flood: base.flood,
    peers: base.peers,
    soak: base.soak,
  };
  const lines = [
    '',
    `Sluice relay benchmark — ${now.cpus} CPUs (${now.model}), Node ${process.version}${settings.quick ? ', QUICK' : ''}`,
    `non-stream and stream chat completions of ${BENCH_MODEL}; billing and consumption logs on; global rate limits off; limits and budgets on the key and user: ${limitsLine(instances)}`,
    '',
  ];
  if (core)
    lines.push(
      'Fresh database',
      phaseTable(core.base, settings),
      '',
      `Populated database (+${settings.populate.tokens} keys, +${settings.populate.channels} channels, +${settings.populate.logs} log rows)`,
      phaseTable(core.populated, settings),
      '',
    );
  lines.push(
    ...instances.map(
      ({ name }) =>
        `billing check, ${name}: fresh database, ${billingLine(base.billing[name])}${populated ? `; populated, ${billingLine(populated.billing[name])}` : ''}`,
    ),
    `load average at start ${run.before.loadAverage.join(' ')}, at end ${now.loadAverage.join(' ')}`,
    ...instances.map((instance) => `${instance.name} switches: ${switchesOf(instance)}`),
    ...instances.map(
      ({ name, main, env, node, flags }) =>
        `${name}: ${main ?? 'server/dist/main.js'}${node ? ` on ${node}` : ''}${flags.length > 0 ? `, node flags ${flags.join(' ')} after the serve script's` : ''}${Object.keys(env).length > 0 ? `, env ${JSON.stringify(env)}` : ''}`,
    ),
    '',
  );
  if (core && run.paired)
    lines.push(
      'Paired: sluice-b against sluice in the same run (sequential requests interleaved)',
      pairedTable(core.base, core.populated),
      '',
    );
  if (base.formats)
    lines.push(
      'Client formats and a signed native type (fresh database; CPU under load, first byte sequential)',
      clientFormatTable(base.formats),
      '',
    );
  if (base.prompts)
    lines.push(
      'Prompt sweep (fresh database; non-stream; added latency sequential and interleaved, CPU under 8 connections)',
      promptSweepTable(base.prompts),
      '',
    );
  if (base.concurrency)
    lines.push(
      'Concurrency sweep (fresh database; closed loops sending to every target in turn; added = target − direct)',
      concurrencyTable(base.concurrency),
      '',
    );
  if (base.jitter)
    lines.push(
      `Slow streams (the upstream's chunks ${SLOW_GAP_MS} ms apart): the gaps the client sees`,
      jitterTable(base.jitter),
      '',
    );
  if (base.flood)
    lines.push('A flood of invalid keys (50 connections) beside a valid client', floodTable(base.flood), '');
  if (base.peers)
    lines.push(
      `A peer gateway in the same run (${PORTKEY}, headless; plain answers: load, then sequential interleaved)`,
      peersTable(base.peers),
      '',
    );
  if (base.soak)
    lines.push(
      `Long-stream soak (${base.soak.minutes} min, 16 connections, 50k-token prompts, 400-event answers)`,
      soakTable(base.soak),
      '',
    );
  if (checks && derived)
    lines.push(
      'Targets',
      verdictTable(checks),
      ...(slowMachineNote(derived) === '' ? [] : [slowMachineNote(derived)]),
      '',
    );
  lines.push(
    `results: ${join(run.resultsDir, 'latest.json')}${run.profile ? `; CPU profiles in ${join(run.resultsDir, 'profiles')}` : ''}`,
    '',
  );
  return { results, text: lines.join('\n') };
};
