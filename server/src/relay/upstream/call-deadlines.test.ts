import { afterEach, describe, expect, it } from 'vitest';
import { CallDeadlines, sweepTickMs, type Watched } from './call-deadlines.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A watched call that records when it expired. */
const call = (name: string, expiredLog: string[], onExpired?: (self: Watched) => void): Watched => {
  const self: Watched = {
    deadlineAt: 0,
    prevWatched: undefined,
    nextWatched: undefined,
    watched: false,
    expired: () => {
      expiredLog.push(name);
      onExpired?.(self);
    },
  };
  return self;
};

let deadlines = new CallDeadlines();
afterEach(() => deadlines.close());

describe('CallDeadlines', () => {
  it('sweeps every eighth of the shortest timeout, from 5 ms to 250 ms', () => {
    expect(sweepTickMs(200)).toBe(25);
    expect(sweepTickMs(10)).toBe(5);
    expect(sweepTickMs(600_000)).toBe(250);
  });

  it('expires a call past its deadline, once, and not one let go or watched again in time', async () => {
    deadlines = new CallDeadlines();
    const log: string[] = [];
    const late = call('late', log);
    const released = call('released', log);
    const refreshed = call('refreshed', log);
    deadlines.watch(late, 80);
    deadlines.watch(released, 80);
    deadlines.watch(refreshed, 80);
    await sleep(40);
    deadlines.release(released);
    deadlines.watch(refreshed, 150);
    await sleep(100);
    expect(log).toEqual(['late']);
    expect(late.watched).toBe(false);
    expect(refreshed.watched).toBe(true);
    await sleep(150);
    expect(log).toEqual(['late', 'refreshed']);
    await sleep(50);
    expect(log).toEqual(['late', 'refreshed']);
  });

  it('keeps the others of the list when calls leave it from its head, middle and tail', async () => {
    deadlines = new CallDeadlines();
    const log: string[] = [];
    const calls = ['a', 'b', 'c', 'd', 'e'].map((name) => call(name, log));
    for (const each of calls) deadlines.watch(each, 60);
    const [a, b, c, d, e] = calls as [Watched, Watched, Watched, Watched, Watched];
    deadlines.release(e); // the head (the last watched)
    deadlines.release(c);
    deadlines.release(a); // the tail
    deadlines.release(a); // not watched: nothing
    await sleep(150);
    expect(log.sort()).toEqual(['b', 'd']);
    expect([b, d].every((each) => !each.watched && !each.prevWatched && !each.nextWatched)).toBe(true);
  });

  it('lets an expired call watch itself again (a paused body) without losing the others', async () => {
    deadlines = new CallDeadlines();
    const log: string[] = [];
    let paused = 2;
    const patient = call('patient', log, (self) => {
      if (paused-- > 0) deadlines.watch(self, 40);
    });
    const other = call('other', log);
    deadlines.watch(patient, 40);
    deadlines.watch(other, 40);
    await sleep(250);
    expect(log.filter((name) => name === 'other')).toHaveLength(1);
    expect(log.filter((name) => name === 'patient')).toHaveLength(3);
    expect(patient.watched).toBe(false);
  });

  it('takes a shorter timeout given later at its own pace, and stops its timer when closed', async () => {
    deadlines = new CallDeadlines();
    const log: string[] = [];
    deadlines.watch(call('slow', log), 60_000);
    const quick = call('quick', log);
    const started = performance.now();
    deadlines.watch(quick, 50);
    while (log.length === 0 && performance.now() - started < 2000) await sleep(5);
    expect(log).toEqual(['quick']);
    expect(performance.now() - started).toBeLessThan(1000);
    deadlines.close();
    expect(log).toEqual(['quick']);
  });
});
