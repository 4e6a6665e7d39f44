import { describe, expect, it } from 'vitest';
import { plainMessages, readSkeleton, SMALL_VALUE_BYTES, type Skeleton } from './json-skeleton.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');

/** The whole object again, from the skeleton and the large members' spans. */
const rebuilt = (raw: Buffer, skeleton: Skeleton): Record<string, unknown> => {
  const whole: Record<string, unknown> = { ...skeleton.fields };
  for (const [key, [start, end]] of skeleton.large)
    whole[key] = JSON.parse(raw.toString('utf8', start, end)) as unknown;
  return whole;
};

/** A deterministic generator of JSON values with every kind of string that trips a quote scanner. */
const generator = (seed: number) => {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state;
  };
  const pieces = [
    'a',
    ' ',
    '"',
    '\\',
    '\\"',
    '\\\\',
    '{',
    '}',
    '[',
    ']',
    ',',
    ':',
    'é',
    '中',
    '😀',
    '\n',
    '\t',
  ];
  const text = (length: number) => {
    let out = '';
    while (out.length < length) out += pieces[next() % pieces.length];
    return out;
  };
  const value = (depth: number): unknown => {
    const kind = next() % (depth > 2 ? 4 : 6);
    if (kind === 0) return text(next() % 40);
    if (kind === 1) return (next() % 2000) - 1000;
    if (kind === 2) return [true, false, null][next() % 3];
    if (kind === 3) return text(next() % 3 === 0 ? SMALL_VALUE_BYTES + (next() % 3000) : next() % 200);
    if (kind === 4) return Array.from({ length: next() % 4 }, () => value(depth + 1));
    return Object.fromEntries(Array.from({ length: next() % 4 }, () => [text(next() % 8), value(depth + 1)]));
  };
  return { value, text, next };
};

describe('the JSON skeleton of a large body', () => {
  it('reads the same object as JSON.parse for 2,000 generated bodies (small members parsed, large ones spanned)', () => {
    for (let seed = 1; seed <= 2000; seed += 1) {
      const { value, text, next } = generator(seed);
      const object = Object.fromEntries(
        Array.from({ length: 1 + (next() % 6) }, () => [text(next() % 10), value(0)]),
      );
      const spaced = next() % 2 === 0;
      const raw = bytes(spaced ? ` \n${JSON.stringify(object, null, 2)}\r\n ` : JSON.stringify(object));
      const skeleton = readSkeleton(raw);
      expect(skeleton, `seed ${seed}`).toBeDefined();
      if (!skeleton) continue;
      expect(rebuilt(raw, skeleton)).toEqual(JSON.parse(raw.toString('utf8')));
      for (const [key, [start, end]] of skeleton.large) {
        expect(end - start).toBeGreaterThan(SMALL_VALUE_BYTES);
        expect(key in skeleton.fields).toBe(false);
      }
    }
  });

  it('keeps the last of two members with the same name, as JSON.parse does', () => {
    const big = 'x'.repeat(SMALL_VALUE_BYTES + 10);
    const raw = bytes(`{"a":"${big}","b":1,"a":2,"c":3,"c":"${big}"}`);
    const skeleton = readSkeleton(raw);
    expect(skeleton?.fields).toEqual({ a: 2, b: 1 });
    expect([...(skeleton?.large.keys() ?? [])]).toEqual(['c']);
    expect(rebuilt(raw, skeleton as Skeleton)).toEqual(JSON.parse(raw.toString('utf8')));
  });

  it('says a body is not plainly one object when it is not, so that it is parsed whole', () => {
    for (const text of [
      '',
      '[]',
      '"a"',
      '{',
      '{"a":1',
      '{"a":1}}',
      '{"a":1} x',
      '{"a" 1}',
      '{"a":1,}',
      '{a:1}',
      '{"a":}',
      '{"a":"b}',
      '{"a":[1,2}',
      '{"a":tru}',
      '{"a":01}',
      '{"a":1 "b":2}',
    ])
      expect(readSkeleton(bytes(text)), text).toBeUndefined();
  });

  it('does not judge the inside of a large string (the upstream does)', () => {
    const raw = bytes(`{"model":"m","messages":"${'\u0001'.repeat(SMALL_VALUE_BYTES + 1)}"}`);
    expect(readSkeleton(raw)?.large.has('messages')).toBe(true);
  });

  it("reads the messages' shape without their contents", () => {
    const big = 'word '.repeat(SMALL_VALUE_BYTES);
    const check = (messages: string) => {
      const raw = bytes(`{"messages": ${messages} }`);
      const where = readSkeleton(raw)?.large.get('messages');
      return where ? plainMessages(raw, where) : 'not large';
    };
    expect(check(`[{"role":"user","content":"${big}"}]`)).toBe(true);
    expect(
      check(`[ {"role":"system","content":"x"} , {"content":"${big}","role":"user","name":"a\\"b"} ]`),
    ).toBe(true);
    expect(check(`[{"role":"us\\u0065r","content":"${big}"}]`)).toBe(true);
    expect(check(`[{"content":"${big}"}]`)).toBe(false);
    expect(check(`[{"role":1,"content":"${big}"}]`)).toBe(false);
    expect(check(`[{"role":"user","content":"${big}"}, "text"]`)).toBe(false);
    expect(check(`[{"role":"user","content":"${big}"}, []]`)).toBe(false);
    expect(check(`{"role":"user","content":"${big}"}`)).toBe(false);
    expect(check(`"${big}"`)).toBe(false);
  });
});
