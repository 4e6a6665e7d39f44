import { describe, expect, it } from 'vitest';
import { UpstreamBody, type BodyController } from './upstream-body.js';

/** Records what the body asks of undici's controller. */
const recorder = () => {
  const calls: string[] = [];
  const controller: BodyController = {
    pause: () => calls.push('pause'),
    resume: () => calls.push('resume'),
    abort: (reason) => calls.push(`abort: ${reason.message}`),
  };
  return { calls, controller };
};

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('UpstreamBody', () => {
  it('answers what was buffered, joined, then waits for the next bytes, then undefined at the end', async () => {
    const body = new UpstreamBody();
    body.push(bytes('ab'));
    body.push(bytes('cd'));
    expect((await body.next())?.toString()).toBe('abcd');
    const waiting = body.next();
    body.push(bytes('ef'));
    expect((await waiting)?.toString()).toBe('ef');
    expect(body.ended).toBe(false);
    body.end();
    expect(body.ended).toBe(true);
    expect(await body.next()).toBeUndefined();
    expect(await body.next()).toBeUndefined();
  });

  it('is ended only once every byte was read', async () => {
    const body = new UpstreamBody();
    body.push(bytes('last'));
    body.end();
    expect(body.ended).toBe(false);
    expect((await body.next())?.toString()).toBe('last');
    expect(body.ended).toBe(true);
  });

  it('resolves a waiting reader with undefined when the body ends', async () => {
    const body = new UpstreamBody();
    const waiting = body.next();
    body.end();
    expect(await waiting).toBeUndefined();
  });

  it('reads the whole body, whether it came before or after the call', async () => {
    const early = new UpstreamBody();
    early.push(bytes('{"a":'));
    early.push(bytes('1}'));
    early.end();
    expect((await early.readAll()).toString()).toBe('{"a":1}');

    const late = new UpstreamBody();
    const whole = late.readAll();
    late.push(bytes('x'));
    late.push(bytes('y'));
    late.end();
    expect((await whole).toString()).toBe('xy');

    const empty = new UpstreamBody();
    const nothing = empty.readAll();
    empty.end();
    expect((await nothing).length).toBe(0);
  });

  it('refuses a body over the limit and aborts the upstream, before or during the read', async () => {
    const during = recorder();
    const body = new UpstreamBody(during.controller);
    const whole = body.readAll(4);
    body.push(bytes('abc'));
    body.push(bytes('de'));
    await expect(whole).rejects.toThrow('the upstream response is too large');
    expect(during.calls).toContain('abort: the upstream response is too large');

    const before = recorder();
    const full = new UpstreamBody(before.controller);
    full.push(bytes('abcdef'));
    await expect(full.readAll(4)).rejects.toThrow('too large');
    expect(before.calls).toContain('abort: the upstream response is too large');
  });

  it('pauses the upstream above 64 KiB unread and resumes it once read', async () => {
    const { calls, controller } = recorder();
    const body = new UpstreamBody(controller);
    body.push(Buffer.alloc(40 * 1024));
    expect(calls).toEqual([]);
    body.push(Buffer.alloc(40 * 1024));
    expect(calls).toEqual(['pause']);
    expect((await body.next())?.length).toBe(80 * 1024);
    expect(calls).toEqual(['pause', 'resume']);
  });

  it('rejects the reader when the upstream fails, and every read after that', async () => {
    const body = new UpstreamBody();
    body.push(bytes('partial'));
    const waiting = body.readAll();
    body.fail(new Error('other side closed'));
    await expect(waiting).rejects.toThrow('other side closed');
    await expect(body.next()).rejects.toThrow('other side closed');
    body.push(bytes('late'));
    body.end();
    await expect(body.next()).rejects.toThrow('other side closed');
  });

  it('destroy aborts the upstream once, drops what was buffered and fails a waiting reader', async () => {
    const { calls, controller } = recorder();
    const body = new UpstreamBody(controller);
    const waiting = body.next();
    body.destroy();
    await expect(waiting).rejects.toThrow('the upstream response was cancelled');
    body.destroy();
    expect(calls).toEqual(['abort: the upstream response was cancelled']);

    const done = recorder();
    const finished = new UpstreamBody(done.controller);
    finished.end();
    finished.destroy();
    expect(done.calls).toEqual([]);
  });

  it('refuses a second reader while one waits', async () => {
    const body = new UpstreamBody();
    const first = body.next();
    await expect(body.next()).rejects.toThrow('already being read');
    await expect(body.readAll()).rejects.toThrow('already being read');
    body.push(bytes('z'));
    expect((await first)?.toString()).toBe('z');
  });

  it('hands over the whole body at once only once it has ended', async () => {
    const body = new UpstreamBody();
    body.push(bytes('ab'));
    expect(body.whole()).toBeUndefined();
    body.push(bytes('cd'));
    body.end();
    expect(body.whole()?.toString()).toBe('abcd');
    expect(body.ended).toBe(true);
    expect(await body.next()).toBeUndefined();
    const failed = new UpstreamBody();
    failed.fail(new Error('gone'));
    expect(failed.whole()).toBeUndefined();
  });
});
