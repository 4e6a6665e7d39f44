import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ), 100 on every usual Linux. */
const clockTicks = (() => {
  try {
    const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isFinite(value) && value > 0 ? value : 100;
  } catch {
    return 100;
  }
})();

/**
 * CPU time (user + system, every thread) a process has used so far, in seconds.
 * Fields 14 and 15 of /proc/<pid>/stat; the command name (field 2) may hold spaces, so count after ')'.
 * @param {number} pid
 * @returns {number}
 */
export const cpuSeconds = (pid) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
};

/**
 * A field of /proc/<pid>/status given in kB (VmHWM: peak resident set; VmRSS: current), in bytes.
 * @param {number} pid
 * @param {'VmHWM' | 'VmRSS'} field
 * @returns {number}
 */
export const memoryBytes = (pid, field) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return match?.[1] === undefined ? Number.NaN : Number(match[1]) * 1024;
};

/** @returns {{ cpus: number, model: string, memoryGiB: number, loadAverage: number[] }} */
export const machine = () => ({
  cpus: availableParallelism(),
  model: cpus()[0]?.model.trim() ?? 'unknown',
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  loadAverage: loadavg().map((value) => Math.round(value * 100) / 100),
});
