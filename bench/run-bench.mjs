/**
 * `npm run bench`: Sluice's relay against a bare pass-through relay and the upstream double itself,
 * on a fresh database, then again after populating it (10k keys, 1k channels, 1M log rows).
 * See bench/README.md. Everything listens on 127.0.0.1; every child is killed by pid at the end,
 * on error and on Ctrl-C.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';
import { PINNED, killAll, pinBench, stopChild } from './children.mjs';
import { measureClientFormats } from './client-formats.mjs';
import { measurePromptSweep } from './prompt-sweep.mjs';
import { measureConcurrency } from './concurrency.mjs';
import { measureFlood, measureJitter } from './sweeps.mjs';
import { prepareNode24 } from './node24.mjs';
import { measureSoak } from './soak.mjs';
import { foldSqlite } from './console-scale-fold.mjs';
import { applyLimits, checkLimits, clearRedis, switchesOf } from './limits.mjs';
import { populate } from './populate.mjs';
import { machine } from './proc-stats.mjs';
import { summarize } from './summary.mjs';
import { ROOT_KEY, setUpSluice, stopSluice } from './sluice-process.mjs';
import { measurePhase, measureWithPortkey, startInstance } from './phase.mjs';
import {
  limitRun,
  node24,
  paired,
  pairEnv,
  pairFlags,
  pairMain,
  pairRouting,
  PARTS,
  profile,
  quick,
  RESULTS,
  ROOT,
  routing,
  say,
  SETTINGS,
  sluiceEnv,
  sluiceMain,
  started,
} from './bench-settings.mjs';
import {
  checkSluice,
  consumeLogRows,
  ensureBuilt,
  freePort,
  helperTargets,
  relayAnswers,
  sluiceTarget,
  startHelper,
} from './bench-helpers.mjs';

/** @typedef {import('./bench-helpers.mjs').Servers} Servers */
/** @typedef {import('./bench-helpers.mjs').Instance} Instance */

/**
 * One phase: start every Sluice, measure, check what each logged, stop them.
 * @param {Servers} servers
 * @param {Instance[]} instances
 * @param {{ phase: string, setUp: boolean, coldKeys?: string[] }} options
 */
const sluiceRun = async (servers, instances, options) => {
  const logsBefore = instances.map((instance) => (options.setUp ? 0 : consumeLogRows(instance.sqlitePath)));
  /** @type {{ instance: Instance, child: import('./children.mjs').Child }[]} */
  const sluices = [];
  try {
    for (const instance of instances) {
      sluices.push({ instance, child: await startInstance(instance, options.phase) });
      if (options.setUp) await setUpSluice(instance.origin, servers.double.origin, instance.routing);
      if (options.setUp && instance.limits !== 'off')
        await applyLimits(instance.origin, instance.sqlitePath, instance.limits);
      await checkSluice(instance.origin);
      if (options.setUp)
        say(`${instance.name}: ${await checkLimits(instance.origin, instance.sqlitePath, instance.limits)}`);
    }
    const phase = PARTS.has('core') ? await measurePhase(servers, sluices, options.coldKeys) : undefined;
    const [first] = sluices;
    // The parts measured once (fresh database): their cost does not depend on the data.
    const once = options.setUp;
    const prompts =
      once && PARTS.has('prompts')
        ? await measurePromptSweep(
            [...helperTargets(servers), ...sluices.map(sluiceTarget)],
            { key: ROOT_KEY, quick },
            say,
          )
        : undefined;
    const targets = [...helperTargets(servers), ...sluices.map(sluiceTarget)];
    const concurrency =
      once && PARTS.has('concurrency')
        ? await measureConcurrency(targets, { key: ROOT_KEY, quick }, say)
        : undefined;
    const jitter =
      once && PARTS.has('jitter') ? await measureJitter(targets, { key: ROOT_KEY, quick }, say) : undefined;
    const [direct] = targets;
    const flood =
      once && PARTS.has('flood') && first && direct
        ? await measureFlood(
            direct,
            sluiceTarget(first),
            { key: ROOT_KEY, quick, relayedCpuMicros: phase?.load[first.instance.name]?.cpuMicrosPerRequest },
            say,
          )
        : undefined;
    const peers =
      once && PARTS.has('peers') && first
        ? await measureWithPortkey(servers, [...helperTargets(servers), sluiceTarget(first)])
        : undefined;
    const soak =
      once && PARTS.has('soak') && first
        ? await measureSoak(
            sluiceTarget(first),
            { key: ROOT_KEY, minutes: Number(process.env['BENCH_SOAK_MINUTES'] ?? 10) },
            say,
          )
        : undefined;
    // Client formats and the signed native type: on the first Sluice.
    const formats =
      !once || !PARTS.has('formats') || !first
        ? undefined
        : await measureClientFormats(
            {
              doubleOrigin: servers.double.origin,
              doublePid: servers.double.child.pid,
              sluiceOrigin: first.instance.origin,
              sluicePid: first.child.pid,
              key: ROOT_KEY,
            },
            SETTINGS,
            say,
          );
    /** @type {Record<string, { relayAnswers: number, consumeLogRows: number }>} */
    const billing = {};
    /** @type {string[]} */
    const refused = [];
    for (const [index, { instance, child }] of sluices.entries()) {
      const answered = await relayAnswers(instance.origin);
      const tooMany = await relayAnswers(instance.origin, '429');
      if (tooMany > 0) refused.push(`${instance.name} answered ${tooMany} relay requests with 429`);
      await stopSluice(child);
      const logged = consumeLogRows(instance.sqlitePath) - (logsBefore[index] ?? 0);
      say(
        `${instance.name} answered ${answered} relay requests with 200 and wrote ${logged} consumption log rows`,
      );
      billing[instance.name] = { relayAnswers: answered, consumeLogRows: logged };
    }
    sluices.length = 0;
    // A refused request is not the relay's cost: the run measured something else (limits too low).
    if (refused.length > 0)
      throw new Error(`${refused.join('; ')} (${options.phase}): the figures are invalid`);
    return { phase, formats, prompts, concurrency, jitter, flood, peers, soak, billing };
  } finally {
    for (const { child } of sluices) await stopChild(child, 'SIGKILL');
  }
};

const main = async () => {
  if (!sluiceMain) ensureBuilt();
  const before = machine();
  if ((before.loadAverage[0] ?? 0) > before.cpus / 2)
    say(
      `warning: load average ${before.loadAverage.join(' ')} on ${before.cpus} CPUs: other work will skew the figures`,
    );
  pinBench();
  if (PINNED) say('BENCH_PIN=1: the relays on core 1, the client and the double on core 0');
  const work = mkdtempSync(join(tmpdir(), 'sluice-bench-'));
  const cleanUp = () => {
    killAll();
    if (process.env['BENCH_KEEP'] !== '1') rmSync(work, { recursive: true, force: true });
  };
  process.once('exit', cleanUp);
  for (const signal of /** @type {NodeJS.Signals[]} */ (['SIGINT', 'SIGTERM']))
    process.once(signal, () => {
      say(`${signal}: stopping every child`);
      process.exit(130);
    });
  /** @type {Instance[]} */
  const instances = [];
  /** @type {string[]} */
  const redisUrls = [0, 1].flatMap((index) => limitRun.redisUrl(index) ?? []);
  try {
    for (const url of redisUrls) say(`Redis ${url}: cleared ${await clearRedis(url)} sluice:* keys`);
    const here = fileURLToPath(new URL('.', import.meta.url));
    const double = await startHelper('upstream double', [join(here, 'upstream-double.mjs')]);
    const bare = await startHelper('bare relay', [join(here, 'bare-relay.mjs'), double.origin], true);
    /** @type {[string, string | undefined, Record<string, string>, string | undefined][]} */
    const kinds = [['sluice', sluiceMain, sluiceEnv, undefined]];
    if (node24) {
      const prepared = prepareNode24(ROOT, RESULTS, say);
      say(`Node 24: Sluice B runs ${prepared.main} on Node ${prepared.version}`);
      kinds.push(['sluice-b', prepared.main, { ...sluiceEnv, ...pairEnv }, prepared.node]);
    } else if (paired)
      kinds.push(['sluice-b', pairMain ?? sluiceMain, { ...sluiceEnv, ...pairEnv }, undefined]);
    for (const [index, [name, main, env, node]] of kinds.entries()) {
      // Each Sluice in a folder of its own: its SQLite file, its billing journal beside it, its log.
      const folder = join(work, name);
      mkdirSync(folder);
      const port = await freePort();
      const redisUrl = limitRun.redisUrl(index);
      instances.push({
        name,
        port,
        origin: `http://127.0.0.1:${port}`,
        sqlitePath: join(folder, 'sluice.db'),
        logFile: join(folder, 'sluice.log'),
        main,
        // Each its own Redis database, so their limit windows stay apart (BENCH_SLUICE_ENV may override).
        env: redisUrl ? { REDIS_CONN_STRING: redisUrl, ...env } : env,
        node,
        flags: name === 'sluice' ? [] : pairFlags,
        routing: name === 'sluice' ? routing : pairRouting,
        limits: name === 'sluice' ? limitRun.limits : limitRun.pairLimits,
        redisUrl,
      });
    }
    /** @type {Servers} */
    const servers = { double, bare, sluiceOrigin: instances[0]?.origin ?? '' };
    say(
      `double ${double.origin}, bare relay ${bare.origin}, ${instances.map((instance) => `${instance.name} ${instance.origin}`).join(', ')}, data in ${work}`,
    );
    for (const instance of instances) say(`${instance.name}: ${switchesOf(instance)}`);

    const base = await sluiceRun(servers, instances, { phase: 'base', setUp: true });

    /** @type {Awaited<ReturnType<typeof sluiceRun>> | undefined} */
    let populated;
    /** @type {import('./populate.mjs').PopulateResult | undefined} */
    let filled;
    if (PARTS.has('core')) {
      say(
        `populating: ${SETTINGS.populate.tokens} keys, ${SETTINGS.populate.channels} channels, ${SETTINGS.populate.logs} log rows`,
      );
      const [first, ...others] = instances;
      if (!first) throw new Error('no Sluice');
      const rows = populate(first.sqlitePath, SETTINGS.populate, double.origin);
      filled = rows;
      // The same rows and cold keys for the second Sluice, in its own database (its build may have
      // other migrations than the first's).
      for (const other of others) populate(other.sqlitePath, SETTINGS.populate, double.origin, rows.keys);
      say(`populated in ${JSON.stringify(rows.seconds)} s: ${JSON.stringify(rows.rows)}`);
      // The rows were written straight into the file, as a one-api database holds them: a build with
      // roll-ups (issue 22) would fold them in while the phase runs and the phase would measure that
      // backfill, not the relay. Each such build's own job folds them first, here.
      for (const instance of instances) {
        const main = instance.main ?? join(ROOT, 'server/dist/main.js');
        if (!existsSync(join(dirname(main), 'services', 'log-rollup-job.js'))) continue;
        const folded = await foldSqlite(instance.sqlitePath, main, 1_000_000);
        say(`${instance.name}: folded ${folded.rows} log ids into its roll-ups in ${folded.seconds} s`);
      }
      populated = await sluiceRun(servers, instances, {
        phase: 'populated',
        setUp: false,
        coldKeys: rows.keys,
      });
    }
    await stopChild(bare.child);
    await stopChild(double.child);

    const { results, text } = summarize({
      started,
      before,
      settings: { ...SETTINGS, parts: [...PARTS], routing, ...(paired ? { pairRouting } : {}) },
      instances,
      base,
      populated,
      filled,
      paired,
      profile,
      resultsDir: RESULTS,
    });
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(join(RESULTS, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(text);
  } catch (error) {
    say(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    for (const { name, logFile } of instances) {
      if (existsSync(logFile))
        process.stderr.write(
          `--- last lines of ${name}'s log ---\n${readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n')}\n`,
        );
      say(
        `${name}'s log: ${logFile}${process.env['BENCH_KEEP'] === '1' ? '' : ' (deleted; BENCH_KEEP=1 keeps it)'}`,
      );
    }
    process.exitCode = 1;
  } finally {
    killAll();
    for (const url of redisUrls)
      await clearRedis(url).catch((/** @type {unknown} */ error) => say(`Redis ${url}: ${String(error)}`));
  }
};

await main();
