/**
 * Client formats and a signed native type through Sluice: an Anthropic Messages stream passed
 * through to an Anthropic channel and one translated to an OpenAI channel, and an OpenAI stream to an
 * AWS Bedrock channel (Converse: SigV4-signed, AWS's binary event stream translated), beside
 * Sluice's own OpenAI stream pass-through, in the same run: CPU per request under load and added
 * time to first byte over the upstream called directly.
 */
import { measureLoad, measureSequential } from './measure.mjs';
import { table } from './report.mjs';
import { BENCH_BEDROCK_MODEL, BENCH_CLAUDE_MODEL, BENCH_MODEL } from './sluice-process.mjs';

const USER = { role: 'user', content: 'Hello! Please greet me back in one short sentence.' };
const SYSTEM = 'You are a helpful assistant.';
/** @param {string} model */
const chatStream = (model) =>
  JSON.stringify({
    model,
    messages: [{ role: 'system', content: SYSTEM }, USER],
    max_tokens: 64,
    stream: true,
  });
const OPENAI_STREAM = chatStream(BENCH_MODEL);
/** What a direct ConverseStream call sends: Converse's body, signed (the double checks the scheme only). */
const CONVERSE_STREAM = JSON.stringify({
  system: [{ text: SYSTEM }],
  messages: [{ role: 'user', content: [{ text: USER.content }] }],
  inferenceConfig: { maxTokens: 64 },
});
const SIGNED = {
  'content-type': 'application/json',
  authorization:
    'AWS4-HMAC-SHA256 Credential=AKIABENCHBENCHBENCH0/20260101/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature=0',
  'x-amz-date': '20260101T000000Z',
};
/** @param {string} model */
const messagesStream = (model) =>
  JSON.stringify({ model, system: SYSTEM, messages: [USER], max_tokens: 64, stream: true });
const MESSAGE_STOP = 'event: message_stop';

/**
 * @typedef {object} FormatResult
 * @property {Record<string, import('./measure.mjs').LoadResult>} load  per Sluice variant
 * @property {Record<string, import('./measure.mjs').SequentialResult>} sequential  per target
 */

/**
 * @param {{ doubleOrigin: string, doublePid: number, sluiceOrigin: string, sluicePid: number, key: string }} where
 * @param {{ connections: number, loadSeconds: number, warmupSeconds: number, sequentialCount: number, sequentialWarmup: number }} settings
 * @param {(message: string) => void} say
 * @returns {Promise<FormatResult>}
 */
export const measureClientFormats = async (where, settings, say) => {
  const sluice = (/** @type {string} */ path) => `${where.sluiceOrigin}${path}`;
  /** @type {import('./measure.mjs').Target[]} */
  const variants = [
    {
      name: 'openai pass-through',
      url: sluice('/v1/chat/completions'),
      pid: where.sluicePid,
      body: OPENAI_STREAM,
    },
    {
      name: 'anthropic pass-through',
      url: sluice('/v1/messages'),
      pid: where.sluicePid,
      body: messagesStream(BENCH_CLAUDE_MODEL),
      streamEnd: MESSAGE_STOP,
    },
    {
      name: 'anthropic translated',
      url: sluice('/v1/messages'),
      pid: where.sluicePid,
      body: messagesStream(BENCH_MODEL),
      streamEnd: MESSAGE_STOP,
    },
    {
      name: 'bedrock converse (signed)',
      url: sluice('/v1/chat/completions'),
      pid: where.sluicePid,
      body: chatStream(BENCH_BEDROCK_MODEL),
    },
  ];
  /** @type {Record<string, import('./measure.mjs').LoadResult>} */
  const load = {};
  for (const variant of variants) {
    say(
      `load: Sluice, ${variant.name} streams, ${settings.connections} connections, ${settings.loadSeconds} s`,
    );
    load[variant.name] = await measureLoad(variant, {
      key: where.key,
      body: variant.body ?? '',
      connections: settings.connections,
      seconds: settings.loadSeconds,
      warmupSeconds: settings.warmupSeconds,
    });
  }
  /** @type {import('./measure.mjs').Target[]} */
  const direct = [
    {
      name: 'direct openai',
      url: `${where.doubleOrigin}/v1/chat/completions`,
      pid: where.doublePid,
      body: OPENAI_STREAM,
    },
    {
      name: 'direct anthropic',
      url: `${where.doubleOrigin}/v1/messages`,
      pid: where.doublePid,
      body: messagesStream(BENCH_CLAUDE_MODEL),
      streamEnd: MESSAGE_STOP,
    },
    {
      name: 'direct bedrock',
      url: `${where.doubleOrigin}/model/${encodeURIComponent(BENCH_BEDROCK_MODEL)}/converse-stream`,
      pid: where.doublePid,
      body: CONVERSE_STREAM,
      headers: SIGNED,
      streamEnd: 'metadata',
    },
  ];
  say(`sequential: ${settings.sequentialCount} streams per target, interleaved (Anthropic clients)`);
  const sequential = await measureSequential([...direct, ...variants], {
    keys: () => where.key,
    body: '',
    stream: true,
    count: settings.sequentialCount,
    warmup: settings.sequentialWarmup,
  });
  return { load, sequential };
};

/** Each Sluice variant and the direct call it adds to. */
const BESIDE = {
  'openai pass-through': 'direct openai',
  'anthropic pass-through': 'direct anthropic',
  'anthropic translated': 'direct openai',
  'bedrock converse (signed)': 'direct bedrock',
};

/**
 * Sluice's CPU per request of each variant ÷ its OpenAI pass-through's, and the added first byte.
 * @param {FormatResult} result
 */
export const deriveClientFormats = (result) => {
  const reference = result.load['openai pass-through']?.cpuMicrosPerRequest ?? Number.NaN;
  return Object.fromEntries(
    Object.entries(BESIDE).map(([name, base]) => {
      const own = result.sequential[name]?.firstByteMs.p50 ?? Number.NaN;
      const baseline = result.sequential[base]?.firstByteMs.p50 ?? Number.NaN;
      const cpu = result.load[name]?.cpuMicrosPerRequest ?? Number.NaN;
      return [
        name,
        { cpuMicrosPerRequest: cpu, cpuRatio: cpu / reference, addedFirstByteP50Ms: own - baseline },
      ];
    }),
  );
};

/** The targets of the client-format issue. */
const LIMITS = {
  'anthropic pass-through': { cpuRatio: 1.2, addedFirstByteP50Ms: 0.5 },
  'anthropic translated': { cpuRatio: 2, addedFirstByteP50Ms: 0.5 },
  'bedrock converse (signed)': { cpuRatio: 2, addedFirstByteP50Ms: 0.5 },
};

/**
 * @param {FormatResult} result
 * @returns {string}
 */
export const clientFormatTable = (result) => {
  const derived = deriveClientFormats(result);
  const rows = Object.entries(derived).map(([name, figures]) => {
    const limit = LIMITS[/** @type {keyof typeof LIMITS} */ (name)];
    const load = result.load[name];
    const verdict = limit
      ? figures.cpuRatio <= limit.cpuRatio && figures.addedFirstByteP50Ms <= limit.addedFirstByteP50Ms
        ? 'ok'
        : 'MISS'
      : 'reference';
    return [
      name,
      (load?.requestsPerSecond ?? Number.NaN).toFixed(0),
      figures.cpuMicrosPerRequest.toFixed(0),
      figures.cpuRatio.toFixed(2),
      figures.addedFirstByteP50Ms.toFixed(3),
      limit ? `≤ ${limit.cpuRatio}× and ≤ ${limit.addedFirstByteP50Ms} ms` : '',
      verdict,
    ];
  });
  return table(
    ['Sluice stream', 'req/s', 'CPU µs/req', '× openai', 'added TTFB p50 ms', 'target', 'verdict'],
    rows,
  );
};
