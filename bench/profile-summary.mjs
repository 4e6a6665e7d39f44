/**
 * Summarises a V8 CPU profile (as written by `node --cpu-prof`, e.g. BENCH_CPU_PROF=1 npm run bench):
 * the functions with the most self time, the functions with the most total (inclusive) time, and self
 * time by package or source file.
 * Usage: node bench/profile-summary.mjs <file.cpuprofile> [top=25]
 */
import { readFileSync } from 'node:fs';
import process from 'node:process';

/**
 * @typedef {object} ProfileNode
 * @property {number} id
 * @property {{ functionName: string, url: string, lineNumber: number }} callFrame
 * @property {number[]} [children]
 */

/**
 * @typedef {object} Profile
 * @property {ProfileNode[]} nodes
 * @property {number[]} samples
 * @property {number[]} timeDeltas
 */

/**
 * @param {unknown} value
 * @returns {value is Profile}
 */
const isProfile = (value) =>
  typeof value === 'object' &&
  value !== null &&
  'nodes' in value &&
  'samples' in value &&
  'timeDeltas' in value;

/**
 * Where a function lives: the npm package, or the file under the repository.
 * @param {string} url
 * @returns {string}
 */
const placeOf = (url) => {
  if (url === '') return '(native / V8)';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? url);
  }
  if (url.startsWith('node:')) return url;
  const repository = url.indexOf('/server/dist/');
  return repository >= 0 ? url.slice(repository + 1) : url.replace(/^file:\/\//, '');
};

/**
 * @param {ProfileNode} node
 * @returns {string}
 */
const labelOf = (node) => {
  const frame = node.callFrame;
  const name = frame.functionName || '(anonymous)';
  return frame.url === '' ? name : `${name}  ${placeOf(frame.url)}:${frame.lineNumber + 1}`;
};

/**
 * @param {string} file
 * @param {number} top
 */
const summarise = (file, top) => {
  /** @type {unknown} */
  const parsed = JSON.parse(readFileSync(file, 'utf8'));
  if (!isProfile(parsed)) throw new Error(`${file} is not a V8 CPU profile`);
  /** @type {Map<number, ProfileNode>} */
  const byId = new Map(parsed.nodes.map((node) => [node.id, node]));
  /** @type {Map<number, number>} */
  const parentOf = new Map();
  for (const node of parsed.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  /** @type {Map<number, number>} */
  const selfById = new Map();
  let total = 0;
  parsed.samples.forEach((id, index) => {
    const delta = parsed.timeDeltas[index] ?? 0;
    selfById.set(id, (selfById.get(id) ?? 0) + delta);
    total += delta;
  });
  /** @type {Map<string, number>} */
  const self = new Map();
  /** @type {Map<string, number>} */
  const inclusive = new Map();
  /** @type {Map<string, number>} */
  const places = new Map();
  for (const [id, time] of selfById) {
    const node = byId.get(id);
    if (!node) continue;
    const label = labelOf(node);
    self.set(label, (self.get(label) ?? 0) + time);
    const place = placeOf(node.callFrame.url);
    places.set(place, (places.get(place) ?? 0) + time);
    /** @type {Set<string>} */
    const seen = new Set();
    for (let current = /** @type {number | undefined} */ (id); current !== undefined;) {
      const frame = byId.get(current);
      if (!frame) break;
      const name = labelOf(frame);
      if (!seen.has(name)) {
        seen.add(name);
        inclusive.set(name, (inclusive.get(name) ?? 0) + time);
      }
      current = parentOf.get(current);
    }
  }
  const print = (/** @type {string} */ title, /** @type {Map<string, number>} */ map) => {
    process.stdout.write(`\n${title}\n`);
    for (const [label, time] of [...map].sort((left, right) => right[1] - left[1]).slice(0, top))
      process.stdout.write(
        `${((100 * time) / total).toFixed(1).padStart(6)} %  ${(time / 1000).toFixed(0).padStart(7)} ms  ${label}\n`,
      );
  };
  process.stdout.write(`${file}: ${(total / 1e6).toFixed(1)} s sampled\n`);
  print('self time by function', self);
  print('self time by package / file', places);
  print('total (inclusive) time by function', inclusive);
};

const [file, top = '25'] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bench/profile-summary.mjs <file.cpuprofile> [top]\n');
  process.exitCode = 2;
} else {
  summarise(file, Number(top));
}
