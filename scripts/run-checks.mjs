// The checks `npm test` runs before the tests: the format check, lint, the typecheck and the build.
// Lint and the typecheck each keep one core busy for minutes, so they run side by side in two lanes
// (lint alone; format check, typecheck, build one after another). Each check's output is printed
// whole when it ends; the first failure in a lane stops that lane, and any failure fails the run.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import process from 'node:process';

const LANES = [['lint'], ['format:check', 'typecheck', 'build']];

/**
 * Runs `npm run <script>`, its output kept until it ends.
 * @param {string} script
 * @returns {Promise<boolean>} whether it passed
 */
const run = (script) =>
  new Promise((resolve) => {
    const started = Date.now();
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    /** @type {Buffer[]} */
    const output = [];
    /** @param {Buffer} chunk */
    const keep = (chunk) => output.push(chunk);
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (error) => output.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const text = Buffer.concat(output).toString();
      process.stdout.write(
        `\n> ${script}: ${code === 0 ? 'passed' : `failed (exit ${code})`} in ${seconds} s\n`,
      );
      if (text.trim() !== '') process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
      resolve(code === 0);
    });
  });

/** @param {string[]} scripts */
const runLane = async (scripts) => {
  for (const script of scripts) if (!(await run(script))) return false;
  return true;
};

const results = await Promise.all(LANES.map(runLane));
if (results.includes(false)) {
  process.stdout.write('\nchecks failed: the tests do not run\n');
  process.exitCode = 1;
}
