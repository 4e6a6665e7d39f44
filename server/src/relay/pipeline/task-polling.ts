import { setTimeout as pause } from 'node:timers/promises';
import type { Logger } from 'pino';
import { parseJson } from '@sluice/contract/parse-json';
import { relayError } from '../../lib/app-error.js';
import type {
  Adaptor,
  AsyncTask,
  ParsedResponse,
  RelayRequestMeta,
  UpstreamRequest,
} from '../providers/adaptor.js';
import type { ClientSignal, Upstream } from '../upstream/upstream.js';
import {
  AttemptFailure,
  isRetryableStatus,
  scrubbedError,
  transportFailure,
  upstreamError,
} from './upstream-error.js';

/** What polling a task needs of its attempt. */
export interface TaskRun {
  readonly adaptor: Adaptor;
  readonly meta: RelayRequestMeta;
  readonly upstream: Upstream;
  readonly clientSignal: ClientSignal;
  readonly logger: Logger;
  readonly requestId: string;
}

/** A poll's answer is a small JSON body; a finished task's file, a picture of a few megabytes. */
const ANSWER_LIMIT = 4 * 1024 * 1024;
const FILE_LIMIT = 32 * 1024 * 1024;
/** However often an adaptor asks to poll, never more than ten times a second, nor less than twice a minute. */
const PAUSE_MS: readonly [number, number] = [100, 30_000];

const listen = (signal: ClientSignal, onAbort: () => void): (() => void) => {
  if ('addEventListener' in signal) {
    signal.addEventListener('abort', onAbort);
    return () => signal.removeEventListener('abort', onAbort);
  }
  signal.on('abort', onAbort);
  return () => signal.off('abort', onAbort);
};

/** One poll: its answer's JSON (undefined when not JSON); a non-2xx answer is the provider's error. */
const ask = async (run: TaskRun, request: UpstreamRequest, signal: AbortSignal): Promise<unknown> => {
  const signed = run.adaptor.sign ? await run.adaptor.sign(request, run.meta) : request;
  const method = signed.method ?? 'POST';
  const body = method === 'GET' ? null : signed.body;
  const response = await run.upstream.call(method, signed.url, signed.headers, body, signal);
  const raw = (await response.body.readAll(ANSWER_LIMIT)).toString('utf8');
  if (response.status < 200 || response.status > 299)
    throw new AttemptFailure(
      upstreamError(response.status, raw, run.adaptor, run.meta.channel),
      isRetryableStatus(response.status),
    );
  return parseJson(raw);
};

/** A file the finished task points at (sent no credentials); undefined when it cannot be had. */
const fetchFile = async (run: TaskRun, url: string, signal: AbortSignal): Promise<Uint8Array | undefined> => {
  const failed = (reason: string) => {
    // The address without its query: a signed link is not written to the log.
    run.logger.warn(
      { requestId: run.requestId, channel: run.meta.channel.id, file: url.split('?')[0], reason },
      'a file of the finished task could not be fetched',
    );
    return undefined;
  };
  if (!/^https?:\/\//i.test(url)) return failed('not an http(s) address');
  try {
    const response = await run.upstream.call('GET', url, {}, null, signal);
    if (response.status >= 200 && response.status <= 299) return await response.body.readAll(FILE_LIMIT);
    response.body.destroy();
    return failed(`status ${response.status}`);
  } catch (error) {
    if (signal.aborted) throw error;
    return failed(error instanceof Error ? error.message : String(error));
  }
};

/**
 * Runs an asynchronous task to its end from the answer that created it (`first`): each answer goes
 * to the adaptor's `read`, whose poll is sent after its pause, until it answers, fails or points at
 * files to fetch. The whole of it is bounded by the upstream's first-byte timeout (RELAY_TIMEOUT, or
 * upstream.ts's default); a client that leaves stops it at once (no further poll is sent).
 */
export const pollTask = async (run: TaskRun, task: AsyncTask, first: Buffer): Promise<ParsedResponse> => {
  const budget = run.upstream.timeouts.firstByteMs;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), budget);
  const unlisten = listen(run.clientSignal, () => controller.abort());
  const { signal } = controller;
  try {
    let step = task.read(parseJson(first.toString('utf8')), run.meta, 0);
    for (let polls = 0; ;) {
      if (step.kind === 'answer') return step.answer;
      if (step.kind === 'failed')
        throw new AttemptFailure(
          scrubbedError(step.error, step.status, run.meta.channel),
          isRetryableStatus(step.status),
        );
      if (step.kind === 'fetch') {
        step = step.then(await Promise.all(step.urls.map((url) => fetchFile(run, url, signal))));
        continue;
      }
      await pause(Math.min(Math.max(step.afterMs, PAUSE_MS[0]), PAUSE_MS[1]), undefined, { signal });
      const body = await ask(run, step.request, signal);
      polls += 1;
      step = task.read(body, run.meta, polls);
    }
  } catch (error) {
    if (run.clientSignal.aborted) throw transportFailure(error, true);
    if (signal.aborted)
      throw new AttemptFailure(
        relayError(
          504,
          'task_timeout',
          `the upstream's task did not finish within ${budget / 1000} s`,
          'upstream_error',
        ),
        true,
      );
    if (error instanceof AttemptFailure) throw error;
    throw transportFailure(error, false);
  } finally {
    clearTimeout(timer);
    unlisten();
  }
};
