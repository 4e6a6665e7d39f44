import { z } from 'zod';
import { nowSeconds } from '../../../lib/time.js';
import type { AsyncTask, RelayRequestMeta, TaskStep, UpstreamRequest } from '../adaptor.js';

/** one-api names DashScope's image models with an `ali-` prefix DashScope does not know (ali-stable-diffusion-xl). */
const aliImageModel = (model: string): string => model.replace(/^ali-/, '');

const nonEmpty = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** Numeric parameters of DashScope's text2image models passed on when the client sent them. */
const NUMERIC_PARAMETERS = ['seed', 'steps', 'scale'] as const;

/**
 * OpenAI's image request as DashScope's text2image task (`X-DashScope-Async: enable`): the model
 * without one-api's `ali-` prefix, `input.prompt` (and a `negative_prompt` the client added), the
 * size as `W*H` (OpenAI's `WxH`), n, and DashScope's own seed, steps, scale and `<style>`.
 */
export const aliImageBody = (
  body: Readonly<Record<string, unknown>>,
  meta: RelayRequestMeta,
): Record<string, unknown> => {
  const negative = nonEmpty(body['negative_prompt']);
  const parameters: Record<string, unknown> = {
    size: (nonEmpty(body['size']) ?? '1024x1024').replaceAll('x', '*'),
    n: typeof body['n'] === 'number' ? body['n'] : 1,
  };
  for (const name of NUMERIC_PARAMETERS) if (typeof body[name] === 'number') parameters[name] = body[name];
  // OpenAI's style is vivid or natural; DashScope's is written <auto>, <anime>, …
  const style = nonEmpty(body['style']);
  if (style?.startsWith('<')) parameters['style'] = style;
  return {
    model: aliImageModel(meta.model),
    input: { prompt: body['prompt'], ...(negative ? { negative_prompt: negative } : {}) },
    parameters,
  };
};

const text = z.string().nullish();

const taskResult = z.looseObject({
  url: text,
  b64_image: text,
  actual_prompt: text,
  code: text,
  message: text,
});

/** A task's answer: `{request_id, output: {task_id, task_status, results, code, message}, usage}`. */
const taskAnswer = z.looseObject({
  code: text,
  message: text,
  output: z
    .looseObject({
      task_id: text,
      task_status: text,
      code: text,
      message: text,
      results: z.array(taskResult).nullish(),
    })
    .nullish(),
});

type TaskResult = z.infer<typeof taskResult>;

/** The statuses that end a task other than SUCCEEDED, and what is said when DashScope gives no message. */
const ENDED: Readonly<Record<string, string>> = {
  FAILED: 'the task failed',
  CANCELED: 'the task was canceled',
  UNKNOWN: 'the task is unknown to DashScope (expired, or never created)',
};

/** A failure's status by its code: the request's own fault (400), else DashScope's (502, worth another channel). */
const FAILURE_STATUS: Readonly<Record<string, number>> = {
  InvalidParameter: 400,
  DataInspectionFailed: 400,
  IPInfringementSuspect: 400,
};

const failure = (code: string, message: string): TaskStep => ({
  kind: 'failed',
  status: FAILURE_STATUS[code] ?? 502,
  error: { code, message, type: 'ali_error' },
});

/** The first poll soon after the task is created, then one a second. */
const FIRST_POLL_MS = 500;
const POLL_MS = 1000;

const pollOf = (meta: RelayRequestMeta, taskId: string): UpstreamRequest => ({
  method: 'GET',
  url: `${meta.channel.baseUrl}/api/v1/tasks/${encodeURIComponent(taskId)}`,
  headers: { authorization: `Bearer ${meta.channel.key}` },
  body: '',
});

/** OpenAI's images answer; `revised_prompt` is the prompt DashScope drew when it rewrote it. */
type Image = { readonly url: string } | { readonly b64_json: string };

const imagesAnswer = (items: readonly { result: TaskResult; image: Image }[]): TaskStep => ({
  kind: 'answer',
  answer: {
    body: {
      created: nowSeconds(),
      data: items.map(({ result, image }) => ({
        ...image,
        ...(result.actual_prompt ? { revised_prompt: result.actual_prompt } : {}),
      })),
    },
    text: '',
  },
});

/**
 * A finished task's images: their URLs, or (`response_format: b64_json`) their bytes in base64,
 * fetched from the URLs as one-api does; an image that could not be fetched is left out, as there.
 */
const finished = (results: readonly TaskResult[], meta: RelayRequestMeta): TaskStep => {
  const drawn = results.filter((result) => result.url || result.b64_image);
  if (drawn.length === 0) {
    const failed = results.find((result) => result.code);
    return failure(
      failed?.code || 'no_image',
      failed?.message || 'DashScope finished the task without an image',
    );
  }
  if (meta.body['response_format'] !== 'b64_json')
    return imagesAnswer(
      drawn.map((result) => ({
        result,
        image: result.url ? { url: result.url } : { b64_json: result.b64_image ?? '' },
      })),
    );
  const fetched = drawn.filter((result) => !result.b64_image);
  return {
    kind: 'fetch',
    urls: fetched.map((result) => result.url ?? ''),
    then: (files) => {
      const items = drawn.flatMap((result) => {
        const file = result.b64_image ? undefined : files[fetched.indexOf(result)];
        const b64 = result.b64_image || (file && Buffer.from(file).toString('base64'));
        return b64 ? [{ result, image: { b64_json: b64 } }] : [];
      });
      return items.length > 0
        ? imagesAnswer(items)
        : failure('image_fetch_failed', 'the images DashScope drew could not be fetched');
    },
  };
};

/**
 * DashScope's text-to-image as a task (the relay polls it, pipeline/task-polling.ts): the creation
 * answers `{output: {task_id, task_status: PENDING}}`; `GET /api/v1/tasks/{task_id}` is asked until
 * the status is SUCCEEDED, FAILED, CANCELED or UNKNOWN; a failure's code and message are DashScope's.
 */
export const aliImageTask: AsyncTask = {
  applies: (meta) => meta.mode === 'images',
  read: (body, meta, polls) => {
    const parsed = taskAnswer.safeParse(body);
    if (!parsed.success) return failure('bad_response', 'DashScope answered something that is not a task');
    const { output, code, message } = parsed.data;
    const status = output?.task_status ?? '';
    if (!output || status === '')
      return code
        ? failure(code, message || code)
        : failure('bad_response', 'DashScope answered no task status');
    if (status === 'SUCCEEDED') return finished(output.results ?? [], meta);
    const ended = ENDED[status];
    if (ended) return failure(output.code || `task_${status.toLowerCase()}`, output.message || ended);
    if (!output.task_id) return failure('bad_response', 'DashScope answered a task without its id');
    return {
      kind: 'poll',
      request: pollOf(meta, output.task_id),
      afterMs: polls === 0 ? FIRST_POLL_MS : POLL_MS,
    };
  },
};
