import type { ScriptRunner } from '../limits/redis-limit-store.js';

/** One minute's counters: field → value (fields: live-snapshot.ts `FIELD`). */
export type MinuteCounts = ReadonlyMap<string, number>;

export interface LiveCounters {
  /** An attempt that got an answer from its channel, after `firstByteMs`. */
  answered(channelId: number, firstByteMs: number): void;
  /** An attempt that got no answer from its channel (the next one is tried, or the request fails). */
  failed(channelId: number): void;
  /** A billed request: its user, model, tokens, the cached part of its prompt, and its quota. */
  settled(
    userId: number,
    model: string,
    prompt: number,
    completion: number,
    cached: number,
    quota: number,
  ): void;
  /** The last `count` minutes' counters, oldest first, ending with the current one (index i: minute `last - count + 1 + i`). */
  read(count: number, nowMs?: number): Promise<{ last: number; minutes: MinuteCounts[] }>;
  /** Sends what this instance counted to Redis now (a no-op in memory). */
  flush(): Promise<void>;
}

export const LIVE_MINUTES = 60;
const KEY = 'sluice:live:';
/** A minute's hash outlives the hour the dashboard reads. */
const TTL_SECONDS = (LIVE_MINUTES + 5) * 60;
const FLUSH_MS = 1000;

// ARGV: ttl, then field, amount pairs; KEYS[1]: the minute's hash.
const ADD = `for i = 2, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('EXPIRE', KEYS[1], ARGV[1]) return 1`;
const READ = `local out = {} for i = 1, #KEYS do out[i] = redis.call('HGETALL', KEYS[i]) end return out`;

const minuteOf = (ms: number) => Math.floor(ms / 60_000);

/** Past this many names of one kind the cache starts over (model names come from requests). */
const FIELD_CACHE_SIZE = 10_000;

/** A cache of the field names of one kind of subject, keyed by the subject. */
const fieldNames = <K, F>(make: (key: K) => F): ((key: K) => F) => {
  const cache = new Map<K, F>();
  return (key) => {
    let fields = cache.get(key);
    if (fields === undefined) {
      if (cache.size >= FIELD_CACHE_SIZE) cache.clear();
      fields = make(key);
      cache.set(key, fields);
    }
    return fields;
  };
};

/**
 * The live dashboard's counters, fed by the relay's own events (routing/call-route.ts) with a few
 * map additions per request, per minute. In memory they are this instance's; with `run` (Redis)
 * they are batched here and added to one hash per minute every second (HINCRBY in one script, the
 * hash expiring after the hour), so that every instance's counts add up. Redis never holds up a
 * request: the relay only adds to the local batch; a failed send is dropped and reported to `warn`.
 */
export const createLiveCounters = (deps: {
  readonly run?: ScriptRunner | undefined;
  readonly warn?: (error: unknown) => void;
  readonly now?: () => number;
  /** The hashes' prefix (tests keep their own). */
  readonly prefix?: string;
}): LiveCounters => {
  const now = deps.now ?? Date.now;
  const key = deps.prefix ?? KEY;
  const buckets = new Map<number, Map<string, number>>();
  let timer: NodeJS.Timeout | undefined;
  let sending: Promise<void> = Promise.resolve();

  const send = (): Promise<void> => {
    timer = undefined;
    if (!deps.run || buckets.size === 0) return sending;
    const run = deps.run;
    const batch = [...buckets];
    buckets.clear();
    sending = sending
      .then(() =>
        Promise.all(
          batch.map(([minute, fields]) => {
            const args: (string | number)[] = [TTL_SECONDS];
            for (const [field, amount] of fields) args.push(field, Math.round(amount));
            return run(ADD, [key + minute], args);
          }),
        ),
      )
      .then(
        () => undefined,
        (error: unknown) => deps.warn?.(error),
      );
    return sending;
  };

  /** The bucket of the current minute (made when the minute starts), made room for as it goes. */
  const bucketNow = (): Map<string, number> => {
    const minute = minuteOf(now());
    let bucket = buckets.get(minute);
    if (!bucket) {
      bucket = new Map();
      buckets.set(minute, bucket);
      if (!deps.run && buckets.size > LIVE_MINUTES + 1)
        for (const old of buckets.keys()) if (old <= minute - LIVE_MINUTES) buckets.delete(old);
    }
    if (deps.run) timer ??= setTimeout(() => void send(), FLUSH_MS).unref();
    return bucket;
  };
  const bump = (bucket: Map<string, number>, field: string, amount: number) => {
    bucket.set(field, (bucket.get(field) ?? 0) + amount);
  };
  // The field names of a channel, a user or a model, made once rather than on every request.
  const channelFields = fieldNames((id: number) => ({
    ok: `c:${id}:ok`,
    fb: `c:${id}:fb`,
    err: `c:${id}:err`,
  }));
  const userFields = fieldNames((id: number) => ({ r: `u:${id}:r`, t: `u:${id}:t`, q: `u:${id}:q` }));
  const modelFields = fieldNames((model: string) => ({ p: `m:${model}:p`, c: `m:${model}:c` }));

  return {
    answered: (channelId, firstByteMs) => {
      const bucket = bucketNow();
      const fields = channelFields(channelId);
      bump(bucket, fields.ok, 1);
      bump(bucket, fields.fb, firstByteMs);
    },
    failed: (channelId) => bump(bucketNow(), channelFields(channelId).err, 1),
    settled: (userId, model, prompt, completion, cached, quota) => {
      const bucket = bucketNow();
      const tokens = prompt + completion;
      const user = userFields(userId);
      bump(bucket, 'r', 1);
      bump(bucket, 't', tokens);
      bump(bucket, user.r, 1);
      bump(bucket, user.t, tokens);
      bump(bucket, user.q, quota);
      if (prompt > 0) {
        const fields = modelFields(model);
        bump(bucket, fields.p, prompt);
        bump(bucket, fields.c, Math.min(cached, prompt));
      }
    },
    read: async (size, nowMs = now()) => {
      const last = minuteOf(nowMs);
      const wanted = Array.from({ length: size }, (_, i) => last - size + 1 + i);
      if (!deps.run) return { last, minutes: wanted.map((minute) => buckets.get(minute) ?? new Map()) };
      if (timer) clearTimeout(timer);
      await send();
      const answer = (await deps.run(
        READ,
        wanted.map((minute) => key + minute),
        [],
      )) as unknown[];
      const minutes = answer.map((pairs) => {
        const fields = new Map<string, number>();
        const list = Array.isArray(pairs) ? (pairs as unknown[]) : [];
        for (let i = 0; i + 1 < list.length; i += 2) fields.set(String(list[i]), Number(list[i + 1]));
        return fields;
      });
      return { last, minutes };
    },
    flush: () => {
      if (timer) clearTimeout(timer);
      return send();
    },
  };
};
