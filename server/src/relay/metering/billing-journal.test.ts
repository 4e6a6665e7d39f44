import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileJournal, journalSegments, memoryJournal, readSegment, thisOwner } from './billing-journal.js';
import type { Settlement } from './settlement-write.js';

const settlement = (quota: number): Settlement => ({
  payer: { userId: 1, tokenId: 2, unlimited: false },
  username: 'alice',
  tokenName: 'key',
  channelId: 3,
  preQuota: 10,
  quota,
  reservationId: randomUUID(),
});

describe('the billing journal', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-journal-test-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads back what it appended, under a header naming its owner', () => {
    const owner = thisOwner(randomUUID());
    const journal = fileJournal(dir, owner);
    const first = settlement(7);
    expect(journal.append(first)).toBe(1);
    expect(journal.append(settlement(8))).toBe(2);
    journal.close();
    const [segment] = journalSegments(dir);
    expect(segment?.instanceId).toBe(owner.instanceId);
    const read = readSegment(segment?.path ?? '');
    expect(read.owner).toEqual(owner);
    expect(read.entries.map((entry) => entry.seq)).toEqual([1, 2]);
    expect(read.entries[0]?.settlement).toEqual(first);
  });

  it('begins new segments as it grows and deletes each once all its settlements are written', () => {
    const journal = fileJournal(dir, thisOwner(randomUUID()), 600);
    // One settlement a turn of the event loop: each write may begin a segment.
    const seqs = Array.from({ length: 12 }, (_, index) => {
      const seq = journal.append(settlement(index));
      journal.flush();
      return seq;
    });
    const segments = readdirSync(dir).length;
    expect(segments).toBeGreaterThan(2);
    // The oldest settlement still waits: nothing can go.
    journal.written(seqs.slice(1));
    expect(readdirSync(dir)).toHaveLength(segments);
    expect(journal.oldestKept()).toBe(1);
    journal.written([1]);
    // Only the segment being appended to is left.
    expect(readdirSync(dir)).toHaveLength(1);
    expect(journal.oldestKept()).toBeGreaterThan(1);
    expect(journal.pending()).toBe(0);
    journal.close();
    expect(readdirSync(dir)).toEqual([]);
  });

  it("writes one turn's settlements in one write, and says when they are in the file", async () => {
    const journal = fileJournal(dir, thisOwner(randomUUID()));
    expect(journal.durable()).toBeUndefined();
    const [segment] = journalSegments(dir);
    const lines = () =>
      readFileSync(segment?.path ?? '', 'utf8')
        .split('\n')
        .filter(Boolean).length;
    expect(lines()).toBe(1);
    const seqs = [
      journal.append(settlement(1)),
      journal.append(settlement(2)),
      journal.append(settlement(3)),
    ];
    const durable = journal.durable();
    expect(durable).toBeInstanceOf(Promise);
    // Nothing of this turn is in the file yet: the answers wait for `durable`.
    expect(lines()).toBe(1);
    let resolved = false;
    void durable?.then(() => {
      resolved = true;
    });
    await Promise.resolve();
    expect(resolved).toBe(false);
    await durable;
    expect(lines()).toBe(4);
    expect(readSegment(segment?.path ?? '').entries.map((entry) => entry.seq)).toEqual(seqs);
    expect(journal.durable()).toBeUndefined();
    // The next turn's appends are a new write.
    journal.append(settlement(4));
    await journal.durable();
    expect(lines()).toBe(5);
    journal.close();
  });

  it('writes what is still buffered when it closes', () => {
    const journal = fileJournal(dir, thisOwner(randomUUID()));
    journal.append(settlement(1));
    journal.append(settlement(2));
    journal.close();
    const [segment] = journalSegments(dir);
    expect(readSegment(segment?.path ?? '').entries.map((entry) => entry.seq)).toEqual([1, 2]);
  });

  it('tells a write that failed and lets the answers go on (the settlements stay queued)', async () => {
    const failures: unknown[] = [];
    // Segments of no size: every write begins a segment, which fails in a folder that is gone.
    const journal = fileJournal(dir, thisOwner(randomUUID()), 0, (error) => failures.push(error));
    rmSync(dir, { recursive: true, force: true });
    journal.append(settlement(1));
    await journal.durable();
    expect(failures).toHaveLength(1);
    expect(journal.pending()).toBe(1);
    expect(journal.durable()).toBeUndefined();
  });

  it('keeps its files when it closes with settlements unwritten (the next start replays them)', () => {
    const journal = fileJournal(dir, thisOwner(randomUUID()));
    journal.append(settlement(1));
    journal.close();
    expect(readdirSync(dir)).toHaveLength(1);
  });

  it('skips a line a kill cut short, and counts it', () => {
    const journal = fileJournal(dir, thisOwner(randomUUID()));
    journal.append(settlement(1));
    journal.close();
    const [segment] = journalSegments(dir);
    appendFileSync(segment?.path ?? '', '{"s":2,"t":{"payer"');
    const read = readSegment(segment?.path ?? '');
    expect(read.entries).toHaveLength(1);
    expect(read.skipped).toBe(1);
  });

  it('reads the client format of a log row, and lines without one (an older Sluice) or with one unknown', () => {
    const journal = fileJournal(dir, thisOwner(randomUUID()));
    const log = {
      model: 'claude-sonnet-4-5',
      promptTokens: 10,
      completionTokens: 5,
      content: 'model ratio 1.50',
      requestId: 'r1',
      elapsedMs: 12,
      stream: true,
      systemPromptReset: false,
    };
    const formatted: Settlement = { ...settlement(1), log: { ...log, clientFormat: 'anthropic' } };
    const plain: Settlement = { ...settlement(2), log };
    journal.append(formatted);
    journal.append(plain);
    journal.close();
    const [segment] = journalSegments(dir);
    const unknown = { s: 3, t: { ...settlement(3), log: { ...log, clientFormat: 'carrier-pigeon' } } };
    appendFileSync(segment?.path ?? '', `${JSON.stringify(unknown)}\n`);
    const read = readSegment(segment?.path ?? '');
    expect(read.skipped).toBe(0);
    expect(read.entries.map((entry) => entry.settlement)).toEqual([
      formatted,
      plain,
      { ...unknown.t, log: { ...log, clientFormat: undefined } },
    ]);
    expect(read.entries[1]?.settlement.log).not.toHaveProperty('clientFormat');
  });

  it('in memory: numbers settlements and tells the oldest one waiting', () => {
    const journal = memoryJournal(randomUUID());
    expect([journal.append(settlement(1)), journal.append(settlement(2))]).toEqual([1, 2]);
    journal.written([1]);
    expect(journal.oldestKept()).toBe(2);
    journal.written([2]);
    expect(journal.oldestKept()).toBe(3);
  });
});
