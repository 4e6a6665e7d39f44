import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientLink } from '../http/client-link.js';
import { AttemptFailure, transportFailure } from '../pipeline/upstream-error.js';
import { listenHandler, type Handler } from '../../test-support/listen.js';
import { createChannelTimeouts, timeoutsFrom } from './channel-timeouts.js';
import { DEFAULT_UPSTREAM_TIMEOUTS, createUpstream, upstreamTimeouts } from './upstream.js';

let handler: Handler = (_request, _body, response) => {
  response.end();
};
let server: Awaited<ReturnType<typeof listenHandler>>;
beforeAll(async () => {
  server = await listenHandler((request, body, response) => handler(request, body, response));
});
afterAll(() => server.close());

/**
 * What a call's promise settled with, and after how many milliseconds. The deadlines are swept every
 * eighth of the shortest timeout (call-deadlines.ts), so a 200 ms timeout fires by about 225 ms; the
 * bounds below leave a loaded machine room.
 */
const settled = async <T>(work: Promise<T>): Promise<{ error: unknown; ms: number }> => {
  const started = performance.now();
  const error = await work.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  return { error, ms: performance.now() - started };
};

describe('upstreamTimeouts', () => {
  it('gives the defaults without RELAY_TIMEOUT: connect 10 s, first byte 600 s, idle 300 s', () => {
    expect(upstreamTimeouts(0)).toEqual({ connectMs: 10_000, firstByteMs: 600_000, idleMs: 300_000 });
    expect(DEFAULT_UPSTREAM_TIMEOUTS).toEqual(upstreamTimeouts(0));
  });

  it('lets RELAY_TIMEOUT (seconds, a fraction allowed) override the first byte and idle, and cap connect', () => {
    expect(upstreamTimeouts(120)).toEqual({ connectMs: 10_000, firstByteMs: 120_000, idleMs: 120_000 });
    expect(upstreamTimeouts(0.25)).toEqual({ connectMs: 250, firstByteMs: 250, idleMs: 250 });
  });

  it('lets each step’s own default (RELAY_CONNECT_TIMEOUT and its kin) win over RELAY_TIMEOUT', () => {
    const steps = { connectSeconds: 2, firstByteSeconds: 0, idleSeconds: 30 };
    expect(upstreamTimeouts(0, DEFAULT_UPSTREAM_TIMEOUTS, steps)).toEqual({
      connectMs: 2_000,
      firstByteMs: 600_000,
      idleMs: 30_000,
    });
    expect(upstreamTimeouts(120, DEFAULT_UPSTREAM_TIMEOUTS, steps)).toEqual({
      connectMs: 2_000,
      firstByteMs: 120_000,
      idleMs: 30_000,
    });
  });
});

describe('a channel’s timeouts (its config)', () => {
  it('replaces each default the config sets, in seconds, and keeps the others', () => {
    expect(timeoutsFrom('{"first_byte_timeout":15,"idle_timeout":"2.5"}', DEFAULT_UPSTREAM_TIMEOUTS)).toEqual(
      {
        connectMs: 10_000,
        firstByteMs: 15_000,
        idleMs: 2_500,
      },
    );
    expect(timeoutsFrom('{"connect_timeout":0.5,"region":"us-east-1"}', DEFAULT_UPSTREAM_TIMEOUTS)).toEqual({
      ...DEFAULT_UPSTREAM_TIMEOUTS,
      connectMs: 500,
    });
  });

  it('keeps a one-api row (no config, other fields, junk) on the defaults themselves', () => {
    const timeoutsOf = createChannelTimeouts(DEFAULT_UPSTREAM_TIMEOUTS);
    for (const config of [null, '', '{}', 'not json', '[1]', '{"region":"us"}', '{"idle_timeout":"soon"}'])
      expect(timeoutsOf({ config })).toEqual(DEFAULT_UPSTREAM_TIMEOUTS);
    expect(timeoutsOf({ config: '' })).toBe(DEFAULT_UPSTREAM_TIMEOUTS);
    expect(timeoutsOf({ config: '{"idle_timeout":-1}' })).toEqual(DEFAULT_UPSTREAM_TIMEOUTS);
    // Worked out once per row object.
    const row = { config: '{"idle_timeout":1}' };
    expect(timeoutsOf(row)).toBe(timeoutsOf(row));
  });
});

describe('createUpstream timeouts', () => {
  it('fails a call whose upstream accepts and never answers at the first-byte timeout, as a 504 worth another channel', async () => {
    handler = () => undefined;
    const upstream = createUpstream({ firstByteMs: 200 });
    try {
      const { error, ms } = await settled(
        upstream.send({ url: `${server.url}/hang`, headers: {}, body: '{}' }, new ClientLink()),
      );
      expect((error as { code?: string }).code).toBe('UND_ERR_HEADERS_TIMEOUT');
      expect(ms).toBeGreaterThanOrEqual(150);
      expect(ms).toBeLessThan(3000);
      const failure = transportFailure(error, false);
      expect(failure).toBeInstanceOf(AttemptFailure);
      expect((failure as AttemptFailure).retryable).toBe(true);
      expect((failure as AttemptFailure).error).toMatchObject({ status: 504, code: 'do_request_failed' });
    } finally {
      await upstream.close();
    }
  });

  it('fails a body that falls silent at the idle timeout, before or between its chunks', async () => {
    handler = (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {"n":1}\n\n');
    };
    const upstream = createUpstream({ idleMs: 200 });
    try {
      const answer = await upstream.send(
        { url: `${server.url}/silent`, headers: {}, body: '{}' },
        new ClientLink(),
      );
      expect((await answer.body.next())?.toString()).toBe('data: {"n":1}\n\n');
      const { error, ms } = await settled(answer.body.next());
      expect((error as { code?: string }).code).toBe('UND_ERR_BODY_TIMEOUT');
      expect(ms).toBeLessThan(3000);
      expect((transportFailure(error, false) as AttemptFailure).error.status).toBe(504);
    } finally {
      await upstream.close();
    }
  });

  it('lets a body whose chunks come more often than the idle timeout last longer than it', async () => {
    handler = (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      let sent = 0;
      const timer = setInterval(() => {
        sent += 1;
        response.write(`data: {"n":${sent}}\n\n`);
        if (sent === 8) {
          clearInterval(timer);
          response.end();
        }
      }, 80);
    };
    const upstream = createUpstream({ idleMs: 250, firstByteMs: 250 });
    try {
      const started = performance.now();
      const answer = await upstream.send(
        { url: `${server.url}/steady`, headers: {}, body: '{}' },
        new ClientLink(),
      );
      const text = (await answer.body.readAll(1024 * 1024)).toString();
      expect(performance.now() - started).toBeGreaterThan(500);
      expect(text.match(/data: /g)).toHaveLength(8);
    } finally {
      await upstream.close();
    }
  });

  it('does not count a silence its reader made (a paused body) against the upstream', async () => {
    const whole = 'x'.repeat(300 * 1024);
    handler = (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      response.end(whole);
    };
    const upstream = createUpstream({ idleMs: 200 });
    try {
      const answer = await upstream.send(
        { url: `${server.url}/large`, headers: {}, body: '{}' },
        new ClientLink(),
      );
      // Nothing read for three idle timeouts: past 64 KB unread the body pauses its upstream.
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect((await answer.body.readAll(1024 * 1024)).toString()).toBe(whole);
    } finally {
      await upstream.close();
    }
  });

  it('takes a call’s own timeouts (a channel’s) over the upstream’s defaults', async () => {
    handler = (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {"n":1}\n\n');
    };
    const upstream = createUpstream({ idleMs: 60_000, firstByteMs: 60_000 });
    try {
      const answer = await upstream.send(
        { url: `${server.url}/silent`, headers: {}, body: '{}' },
        new ClientLink(),
        { ...upstream.timeouts, idleMs: 200 },
      );
      expect((await answer.body.next())?.toString()).toBe('data: {"n":1}\n\n');
      const { error, ms } = await settled(answer.body.next());
      expect((error as { code?: string }).code).toBe('UND_ERR_BODY_TIMEOUT');
      expect(ms).toBeLessThan(3000);
      // Another connect timeout goes through an agent of its own, which close() closes too.
      handler = () => undefined;
      const { error: late } = await settled(
        upstream.send({ url: `${server.url}/hang`, headers: {}, body: '{}' }, new ClientLink(), {
          connectMs: 5_000,
          firstByteMs: 200,
          idleMs: 200,
        }),
      );
      expect((late as { code?: string }).code).toBe('UND_ERR_HEADERS_TIMEOUT');
    } finally {
      await upstream.close();
    }
  });

  it('takes RELAY_TIMEOUT in seconds over the defaults', async () => {
    handler = () => undefined;
    const upstream = createUpstream(0.2);
    try {
      const { error, ms } = await settled(
        upstream.send({ url: `${server.url}/hang`, headers: {}, body: '{}' }, new ClientLink()),
      );
      expect((error as { code?: string }).code).toBe('UND_ERR_HEADERS_TIMEOUT');
      expect(ms).toBeLessThan(3000);
    } finally {
      await upstream.close();
    }
  });

  it('still answers a client that left before the timeout as a client that left (499), not a timeout', async () => {
    handler = () => undefined;
    const upstream = createUpstream({ firstByteMs: 5_000 });
    try {
      const client = new ClientLink();
      const call = upstream.send({ url: `${server.url}/hang`, headers: {}, body: '{}' }, client);
      setTimeout(() => client.abort(), 50);
      const { error, ms } = await settled(call);
      expect(ms).toBeLessThan(1000);
      expect(transportFailure(error, client.aborted)).toMatchObject({ status: 499 });
    } finally {
      await upstream.close();
    }
  });
});
