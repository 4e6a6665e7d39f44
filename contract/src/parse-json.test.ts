import { describe, expect, it } from 'vitest';
import { isValidJson, parseJson } from './parse-json.js';

describe('parseJson', () => {
  it('reads any JSON value', () => {
    expect(parseJson('{"a":[1,true,null]}')).toEqual({ a: [1, true, null] });
    expect(parseJson(' "text" ')).toBe('text');
    expect(parseJson('null')).toBeNull();
    expect(parseJson('0')).toBe(0);
  });

  it('answers undefined for what is not JSON', () => {
    expect(parseJson('')).toBeUndefined();
    expect(parseJson('{"a": ')).toBeUndefined();
    expect(parseJson('undefined')).toBeUndefined();
  });
});

describe('isValidJson', () => {
  it('accepts every JSON value and refuses the rest, the empty text included', () => {
    expect(isValidJson('[]')).toBe(true);
    expect(isValidJson('null')).toBe(true);
    expect(isValidJson('false')).toBe(true);
    expect(isValidJson('')).toBe(false);
    expect(isValidJson('{"gpt-4o-mini": }')).toBe(false);
  });
});
