import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { baseEnv, describeRun, runBounded, scratchHome, type CliRun } from './agent-clis.js';

/** What an agent CLI answered, read from its own JSON output, with the process it ran as. */
export interface AgentAnswer {
  readonly run: CliRun;
  readonly text: string;
  /** The tokens the CLI says the turn used, as it read them from the answers it got. */
  readonly usage: { readonly input: number; readonly output: number };
  /** What the CLI reported on the way without failing (Codex's retry and fallback notices). */
  readonly notices: readonly string[];
}

export interface AgentRequest {
  readonly binary: string;
  /** Sluice's origin, e.g. http://127.0.0.1:1234. */
  readonly baseUrl: string;
  /** The Sluice key, `sk-…`. */
  readonly key: string;
  readonly model: string;
  readonly prompt: string;
  readonly timeoutMs: number;
}

const failed = (cli: string, run: CliRun, why: string): Error =>
  new Error(`${cli}: ${why}\n${describeRun(run)}`);

const parsedJson = (cli: string, run: CliRun, text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    throw failed(cli, run, 'its output is not the JSON it was asked for');
  }
};

/** Runs `command args` in a scratch HOME (removed afterwards), failing on a non-zero exit. */
const runIn = async (
  cli: string,
  prepare: (home: string) => Promise<{ args: string[]; env: Record<string, string> }>,
  request: AgentRequest,
): Promise<CliRun> => {
  const home = await scratchHome(cli);
  try {
    const { args, env } = await prepare(home.path);
    const run = await runBounded(request.binary, args, {
      cwd: home.path,
      env: { ...baseEnv(home.path), ...env },
      timeoutMs: request.timeoutMs,
    });
    if (run.code !== 0 || run.timedOut) throw failed(cli, run, 'it did not finish cleanly');
    return run;
  } finally {
    await home.remove();
  }
};

/**
 * `claude -p <prompt> --output-format json` against Sluice: the key in `ANTHROPIC_API_KEY` (sent as
 * x-api-key) or `ANTHROPIC_AUTH_TOKEN` (sent as a Bearer token); every model slot, the small fast
 * one included, set to `model`; telemetry, error reports, the updater and other non-essential
 * traffic off; a config dir of its own.
 */
export const runClaudeCode = async (
  request: AgentRequest & { keyVariable: 'ANTHROPIC_API_KEY' | 'ANTHROPIC_AUTH_TOKEN' },
): Promise<AgentAnswer> => {
  const run = await runIn(
    'claude',
    (home) =>
      Promise.resolve({
        args: ['-p', request.prompt, '--output-format', 'json', '--model', request.model],
        env: {
          ANTHROPIC_BASE_URL: request.baseUrl,
          [request.keyVariable]: request.key,
          ANTHROPIC_MODEL: request.model,
          ANTHROPIC_DEFAULT_HAIKU_MODEL: request.model,
          ANTHROPIC_DEFAULT_SONNET_MODEL: request.model,
          ANTHROPIC_DEFAULT_OPUS_MODEL: request.model,
          ANTHROPIC_SMALL_FAST_MODEL: request.model,
          CLAUDE_CONFIG_DIR: join(home, '.claude'),
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_TELEMETRY: '1',
          DISABLE_ERROR_REPORTING: '1',
          DISABLE_AUTOUPDATER: '1',
          DISABLE_BUG_COMMAND: '1',
        },
      }),
    request,
  );
  const result = parsedJson('claude', run, run.stdout.trim()) as {
    is_error?: boolean;
    result?: string;
    usage?: { input_tokens?: number; output_tokens?: number };
  };
  if (result.is_error !== false || typeof result.result !== 'string')
    throw failed('claude', run, 'its result is an error');
  return {
    run,
    text: result.result,
    usage: { input: result.usage?.input_tokens ?? -1, output: result.usage?.output_tokens ?? -1 },
    notices: [],
  };
};

/** A custom provider for Codex: Sluice's /v1, the key from an environment variable, Responses. */
const codexConfig = (request: AgentRequest, websockets: boolean) =>
  [
    `model = ${JSON.stringify(request.model)}`,
    'model_provider = "sluice"',
    'approval_policy = "never"',
    'sandbox_mode = "read-only"',
    'check_for_update_on_startup = false',
    '',
    '[features]',
    'plugins = false',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[feedback]',
    'enabled = false',
    '',
    '[model_providers.sluice]',
    'name = "Sluice"',
    `base_url = ${JSON.stringify(`${request.baseUrl}/v1`)}`,
    'env_key = "SLUICE_API_KEY"',
    'wire_api = "responses"',
    `supports_websockets = ${String(websockets)}`,
    '',
  ].join('\n');

interface CodexEvent {
  type?: string;
  message?: string;
  item?: { type?: string; text?: string; message?: string };
  usage?: { input_tokens?: number; output_tokens?: number };
  error?: { message?: string };
}

/**
 * `codex exec --json <prompt>` against Sluice, headless: a CODEX_HOME of its own whose config.toml
 * names Sluice as the model provider (`supports_websockets` as asked), approval never, a read-only
 * sandbox, plugins, analytics and feedback off. Its answer and usage are read from the JSONL events.
 */
export const runCodex = async (request: AgentRequest & { websockets: boolean }): Promise<AgentAnswer> => {
  const run = await runIn(
    'codex',
    async (home) => {
      await writeFile(join(home, 'config.toml'), codexConfig(request, request.websockets));
      return {
        args: ['exec', '--json', '--skip-git-repo-check', request.prompt],
        env: { CODEX_HOME: home, SLUICE_API_KEY: request.key, RUST_LOG: 'warn' },
      };
    },
    request,
  );
  const events = run.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => parsedJson('codex', run, line) as CodexEvent);
  const failure = events.find((event) => event.type === 'turn.failed');
  if (failure) throw failed('codex', run, `the turn failed: ${JSON.stringify(failure)}`);
  const completed = events.find((event) => event.type === 'turn.completed');
  if (!completed) throw failed('codex', run, 'no turn.completed event');
  const text = events
    .filter((event) => event.type === 'item.completed' && event.item?.type === 'agent_message')
    .map((event) => event.item?.text ?? '')
    .join('\n');
  // `error` events are notices (a retry, the fallback to HTTPS); a failed turn ends in turn.failed.
  const notices = events.flatMap((event) =>
    event.type === 'error'
      ? [event.message ?? '']
      : event.type === 'item.completed' && event.item?.type === 'error'
        ? [event.item.message ?? '']
        : [],
  );
  return {
    run,
    text,
    usage: { input: completed.usage?.input_tokens ?? -1, output: completed.usage?.output_tokens ?? -1 },
    notices,
  };
};

/**
 * `gemini -p <prompt> --output-format json` against Sluice: `GOOGLE_GEMINI_BASE_URL`,
 * `GEMINI_API_KEY`, a HOME whose settings pick API-key auth and turn usage statistics, telemetry and
 * the updater off; the workspace trusted and no relaunch (one process).
 */
export const runGeminiCli = async (request: AgentRequest): Promise<AgentAnswer> => {
  const run = await runIn(
    'gemini',
    async (home) => {
      await mkdir(join(home, '.gemini'));
      await writeFile(
        join(home, '.gemini', 'settings.json'),
        JSON.stringify({
          security: { auth: { selectedType: 'gemini-api-key' } },
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
          general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
        }),
      );
      return {
        args: ['-p', request.prompt, '--output-format', 'json', '--model', request.model],
        env: {
          GOOGLE_GEMINI_BASE_URL: request.baseUrl,
          GEMINI_API_KEY: request.key,
          GEMINI_CLI_TRUST_WORKSPACE: 'true',
          GEMINI_CLI_NO_RELAUNCH: 'true',
        },
      };
    },
    request,
  );
  const result = parsedJson('gemini', run, run.stdout.trim()) as {
    response?: string;
    error?: unknown;
    stats?: { models?: Record<string, { tokens?: { prompt?: number; candidates?: number } }> };
  };
  if (result.error !== undefined || typeof result.response !== 'string')
    throw failed('gemini', run, 'its result is an error');
  const tokens = result.stats?.models?.[request.model]?.tokens;
  return {
    run,
    text: result.response,
    usage: { input: tokens?.prompt ?? -1, output: tokens?.candidates ?? -1 },
    notices: [],
  };
};
