/**
 * The bench's requests as its sweeps send them: the chat body, and one timed request with the
 * arrival times of its chunks.
 */
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';

export const MESSAGES = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: 'Hello! Please greet me back in one short sentence.' },
];
/** @param {string} model @param {boolean} stream */
export const chat = (model, stream) => JSON.stringify({ model, messages: MESSAGES, max_tokens: 64, stream });

/**
 * One request; its total time, time to first byte and the arrival times of its chunks.
 * @param {string} url
 * @param {string} key
 * @param {string} body
 * @param {import('undici').Agent} agent
 */
export const timed = async (url, key, body, agent) => {
  const started = performance.now();
  const response = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body,
    dispatcher: agent,
  });
  /** @type {number[]} */
  const arrivals = [];
  let text = '';
  for await (const chunk of response.body) {
    arrivals.push(performance.now());
    if (Buffer.isBuffer(chunk)) text += chunk.toString('utf8');
  }
  if (response.statusCode !== 200)
    throw new Error(`${url} answered ${response.statusCode}: ${text.slice(0, 200)}`);
  return { totalMs: performance.now() - started, firstByteMs: (arrivals[0] ?? started) - started, arrivals };
};
