import { LIMIT_BATCH_SCRIPT } from './redis-limit-scripts.js';

/** Runs a Lua script on the shared Redis (the cache's connection: cache.ts `runScript`). */
export type ScriptRunner = (
  script: string,
  keys: readonly string[],
  args: readonly (string | number)[],
) => Promise<unknown>;

/** At most this many operations go in one script call (a larger queue takes several). */
const BATCH_LIMIT = 256;

/**
 * How long an operation that no request waits for (a settlement, slots or a lease given back) may
 * wait for a check to go with: it reaches Redis at most this late.
 */
export const END_DELAY_MS = 5;

/** The batch script's kinds: a check, a settlement, slots given back, a lease's rest given back. */
export type LimitOperationKind = 'a' | 's' | 'h' | 'g';

interface Operation {
  readonly kind: LimitOperationKind;
  readonly subjects: readonly string[];
  readonly args: readonly (string | number)[];
  readonly resolve: (answer: unknown) => void;
  readonly reject: (error: Error) => void;
}

export interface LimitBatches {
  /**
   * Queues one operation on the subjects' keys (each given as its keys' prefix); answers what the
   * script answered for it, or fails with its error alone.
   */
  send(
    kind: LimitOperationKind,
    subjects: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown>;
}

/**
 * The operations of every request go to Redis in batches, one script call each
 * (LIMIT_BATCH_SCRIPT), run in the order they came, each atomic as its own script would be. A
 * check goes at the end of its turn of the event loop, with everything queued before it, unless a
 * batch is in flight: then it waits for that batch's answer and goes with everything that came
 * meanwhile (as Nagle's algorithm does), so alone a check costs one round trip and under load one
 * round trip serves many requests. Any other operation waits up to END_DELAY_MS for a check.
 */
export const createLimitBatches = (run: ScriptRunner): LimitBatches => {
  let queue: Operation[] = [];
  let checkQueued = false;
  let endTimer: NodeJS.Timeout | undefined;
  /** Batches sent and not yet answered; while there is one, the next batch gathers. */
  let sending = 0;
  let flushWanted = false;

  const sent = () => {
    sending -= 1;
    if (sending === 0 && flushWanted) flush();
  };

  const dispatch = (operations: readonly Operation[]) => {
    // Each subject once in KEYS; the operations name theirs by index (Lua's, from 1).
    const subjects: string[] = [];
    const indexes = new Map<string, number>();
    const encoded = operations.map((operation) => [
      operation.kind,
      operation.subjects.map((subject) => {
        let index = indexes.get(subject);
        if (index === undefined) {
          index = subjects.push(subject);
          indexes.set(subject, index);
        }
        return index;
      }),
      operation.args,
    ]);
    sending += 1;
    run(LIMIT_BATCH_SCRIPT, subjects, [JSON.stringify(encoded)]).then(
      (answer) => {
        sent();
        let answers: unknown = undefined;
        try {
          answers = typeof answer === 'string' ? JSON.parse(answer) : undefined;
        } catch {
          // Answered as no list: each operation fails below.
        }
        const list = Array.isArray(answers) ? (answers as readonly unknown[]) : [];
        for (const [index, operation] of operations.entries()) {
          const one = list[index];
          if (operation.kind !== 'a' && one !== 1)
            operation.reject(new Error(`the limit script failed: ${String(one)}`));
          else operation.resolve(one);
        }
      },
      (error: unknown) => {
        sent();
        const failure = error instanceof Error ? error : new Error(String(error));
        for (const operation of operations) operation.reject(failure);
      },
    );
  };

  // A function declaration: `sent` above calls it.
  function flush() {
    if (sending > 0) {
      // The batch in flight answers first; what came meanwhile goes in one batch then.
      flushWanted = true;
      return;
    }
    flushWanted = false;
    const operations = queue;
    queue = [];
    checkQueued = false;
    if (endTimer !== undefined) clearTimeout(endTimer);
    endTimer = undefined;
    for (let start = 0; start < operations.length; start += BATCH_LIMIT)
      dispatch(operations.slice(start, start + BATCH_LIMIT));
  }

  return {
    send: (kind, subjects, args) =>
      new Promise<unknown>((resolve, reject) => {
        queue.push({ kind, subjects, args, resolve, reject });
        if (kind === 'a') {
          if (!checkQueued) setImmediate(flush);
          checkQueued = true;
        } else if (!checkQueued && endTimer === undefined) {
          endTimer = setTimeout(flush, END_DELAY_MS);
          endTimer.unref();
        }
      }),
  };
};
