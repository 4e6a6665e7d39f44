import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
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
    const seqs = Array.from({ length: 12 }, (_, index) => journal.append(settlement(index)));
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
