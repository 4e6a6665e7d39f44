/**
 * The billing journal: each settlement is appended to a local file before its answer's last byte,
 * so that a process killed before the settlement reached the database (kill -9, OOM) loses no
 * answered request's billing: the next start on this host replays what the database lacks.
 *
 * A journal is a series of segment files `<instance>.<first seq>.jsonl` in one directory: a header
 * line naming the instance, its host, pid and start, then one line per settlement (`{"s":seq,"t":…}`).
 * A segment is deleted once every settlement in it is written; the database keeps which sequence
 * numbers are written (`sluice_settled`), in the same transaction as the settlements themselves.
 * Appends are plain writes: they survive the process, not the machine (no fsync per request).
 *
 * The appends of one turn of the event loop go to the file in one write, in the loop's check phase
 * (`setImmediate`): under load one system call carries many settlements. The answers whose
 * settlements wait for that write hold their last bytes until it is done (`durable()`), so no
 * client has a whole answer whose settlement is not in the file.
 */
import { closeSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { parseJson } from '@sluice/contract/parse-json';
import { CLIENT_FORMATS } from '@sluice/contract/schemas/log';
import { z } from 'zod';
import type { Settlement } from './settlement-write.js';
import { UnwrittenSeqs } from './unwritten-seqs.js';

export interface BillingJournal {
  readonly instanceId: string;
  /** Records a settlement before its answer ends: its sequence number (in the file by `durable()`). */
  append(settlement: Settlement): number;
  /**
   * Undefined when everything appended is in the file; else a promise of the write that puts it
   * there (this turn's appends, written together). An answer's last bytes wait for it.
   */
  durable(): Promise<void> | undefined;
  /** Writes what is appended now, at once (shutdown, tests). */
  flush(): void;
  /** These settlements are committed (or charged otherwise): their segment may go. */
  written(seqs: readonly number[]): void;
  /** The first sequence number any kept segment holds: marks below it are needed no more. */
  oldestKept(): number;
  /** Whether settlements are still waiting to be written. */
  pending(): number;
  close(): void;
}

/** Who wrote a journal: enough to tell on this host whether it still lives. */
export interface JournalOwner {
  readonly instanceId: string;
  readonly host: string;
  readonly pid: number;
  /** Milliseconds since the epoch when the owning process started. */
  readonly startedAt: number;
}

/** A new segment is begun past this size; the old one goes once all its settlements are written. */
export const SEGMENT_BYTES = 8 * 1024 * 1024;

/** A segment's name; `.recovering` when a recovery claimed it. */
const SEGMENT_NAME = /^([0-9a-f-]{36})\.(\d+)\.jsonl(\.recovering)?$/;

/** When this process started (its instance rows and journals carry it). */
export const processStartedAt = (): number => Math.round(performance.timeOrigin);

/** The owner of this process's journal. */
export const thisOwner = (instanceId: string): JournalOwner => ({
  instanceId,
  host: hostname(),
  pid: process.pid,
  startedAt: processStartedAt(),
});

/** A journal kept in memory only (tests, and `BILLING_JOURNAL_DIR=off`): sequence numbers, no file. */
export const memoryJournal = (instanceId: string): BillingJournal => {
  const waiting = new UnwrittenSeqs();
  return {
    instanceId,
    append: () => waiting.take(),
    written: (seqs) => {
      for (const seq of seqs) waiting.written(seq);
    },
    oldestKept: () => waiting.oldest,
    durable: () => undefined,
    flush: () => undefined,
    pending: () => waiting.count,
    close: () => undefined,
  };
};

/** Opens this instance's journal in `dir` (which exists and is writable). */
export const fileJournal = (
  dir: string,
  owner: JournalOwner,
  segmentBytes = SEGMENT_BYTES,
  onWriteError: (error: unknown) => void = () => undefined,
): BillingJournal => {
  /** The settlements' sequence numbers, and which are not written yet. */
  const waiting = new UnwrittenSeqs();
  /** Segments oldest first: their first seq and file; the last is the one appended to. */
  const segments: { first: number; path: string; fd: number; bytes: number }[] = [];
  /** Lines appended and not yet in the file, and the seq of the first of them. */
  let lines = '';
  let linesFirst = 1;
  let linesCount = 0;
  /** This turn's write, once scheduled: what `durable()` answers. */
  let flushed: Promise<void> | undefined;
  let resolveFlushed: (() => void) | undefined;

  const begin = (first: number) => {
    const path = join(dir, `${owner.instanceId}.${first}.jsonl`);
    const fd = openSync(path, 'a');
    const header = `${JSON.stringify({ owner })}\n`;
    writeSync(fd, header);
    segments.push({ first, path, fd, bytes: header.length });
  };

  /** Writes the buffered lines: one write while they fit the current segment. */
  const flush = () => {
    const resolve = resolveFlushed;
    flushed = undefined;
    resolveFlushed = undefined;
    if (linesCount > 0) {
      const text = lines;
      const first = linesFirst;
      lines = '';
      linesCount = 0;
      try {
        let current = segments[segments.length - 1];
        if (!current || current.bytes > segmentBytes) {
          begin(first);
          current = segments[segments.length - 1];
        }
        if (current) current.bytes += writeSync(current.fd, text);
      } catch (error) {
        // The settlements stay queued for the database; only their crash safety is lost. Said loudly.
        onWriteError(error);
      }
    }
    resolve?.();
  };

  /** Deletes the segments (not the current one) whose settlements are all written. */
  const prune = () => {
    const oldest = waiting.oldest;
    while (segments.length > 1) {
      const [segment, following] = segments as [(typeof segments)[number], (typeof segments)[number]];
      if (following.first > oldest) break;
      closeSync(segment.fd);
      unlinkSync(segment.path);
      segments.shift();
    }
  };

  begin(waiting.next);
  return {
    instanceId: owner.instanceId,
    append: (settlement) => {
      const seq = waiting.take();
      if (linesCount === 0) linesFirst = seq;
      lines += `{"s":${seq},"t":${JSON.stringify(settlement)}}\n`;
      linesCount += 1;
      if (!flushed)
        flushed = new Promise<void>((resolve) => {
          resolveFlushed = resolve;
          setImmediate(flush);
        });
      return seq;
    },
    durable: () => flushed,
    flush,
    written: (seqs) => {
      for (const seq of seqs) waiting.written(seq);
      if (segments.length > 1) prune();
    },
    oldestKept: () => segments[0]?.first ?? waiting.next,
    pending: () => waiting.count,
    close: () => {
      flush();
      for (const segment of segments) closeSync(segment.fd);
      // Everything written: nothing for a restart to replay.
      if (waiting.count === 0) for (const segment of segments) unlinkSync(segment.path);
      segments.length = 0;
    },
  };
};

const payerSchema = z.object({ userId: z.number().int(), tokenId: z.number().int(), unlimited: z.boolean() });
const settlementSchema = z.object({
  payer: payerSchema,
  username: z.string(),
  tokenName: z.string(),
  channelId: z.number().int(),
  preQuota: z.number().int(),
  quota: z.number().int(),
  reservationId: z.string().optional(),
  log: z
    .object({
      model: z.string(),
      promptTokens: z.number().int(),
      completionTokens: z.number().int(),
      content: z.string(),
      requestId: z.string(),
      elapsedMs: z.number().int(),
      stream: z.boolean(),
      systemPromptReset: z.boolean(),
      // Optional: lines an older Sluice wrote have none; one Sluice does not know is dropped, never
      // the settlement with it.
      clientFormat: z.enum(CLIENT_FORMATS).optional().catch(undefined),
      routing: z.string().optional().catch(undefined),
    })
    .optional(),
});
const entrySchema = z.object({ s: z.number().int().positive(), t: settlementSchema });
const headerSchema = z.object({
  owner: z.object({
    instanceId: z.string(),
    host: z.string(),
    pid: z.number().int(),
    startedAt: z.number(),
  }),
});

export interface JournalSegment {
  readonly path: string;
  readonly instanceId: string;
}

/** The journal segments in `dir`, of any instance, claimed or not. */
export const journalSegments = (dir: string): JournalSegment[] =>
  readdirSync(dir).flatMap((name) => {
    const match = SEGMENT_NAME.exec(name);
    return match?.[1] ? [{ path: join(dir, name), instanceId: match[1] }] : [];
  });

export interface ReadSegment {
  readonly owner: JournalOwner | undefined;
  readonly entries: { seq: number; settlement: Settlement }[];
  /** Lines that did not parse (a write cut short by the kill, at the end): skipped. */
  readonly skipped: number;
}

/** Reads a segment; a torn or foreign line is skipped and counted. */
export const readSegment = (path: string): ReadSegment => {
  const lines = readFileSync(path, 'utf8').split('\n');
  const header = headerSchema.safeParse(parseJson(lines[0] ?? ''));
  const entries: { seq: number; settlement: Settlement }[] = [];
  let skipped = 0;
  for (const line of lines.slice(1)) {
    if (line === '') continue;
    const entry = entrySchema.safeParse(parseJson(line));
    if (entry.success) entries.push({ seq: entry.data.s, settlement: entry.data.t });
    else skipped += 1;
  }
  return { owner: header.success ? header.data.owner : undefined, entries, skipped };
};
