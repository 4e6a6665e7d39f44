import { describe, expect, it } from 'vitest';
import { csvField, csvRecord } from './csv.js';

describe('csv', () => {
  it('leaves plain text and numbers alone', () => {
    expect(csvField('gpt-4o')).toBe('gpt-4o');
    expect(csvField(-12)).toBe('-12');
    expect(csvField(true)).toBe('true');
    expect(csvField('')).toBe('');
  });

  it('quotes commas, quotes and line breaks, doubling inner quotes', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('one\ntwo')).toBe('"one\ntwo"');
    expect(csvField('one\r\ntwo')).toBe('"one\r\ntwo"');
  });

  it('defuses text that a spreadsheet would run as a formula', () => {
    expect(csvField('=1+1')).toBe("'=1+1");
    expect(csvField('+SUM(A1)')).toBe("'+SUM(A1)");
    expect(csvField('-2')).toBe("'-2");
    expect(csvField('@cmd')).toBe("'@cmd");
    expect(csvField('\t=x')).toBe("'\t=x");
    expect(csvField('=HYPERLINK("x","y")')).toBe('"\'=HYPERLINK(""x"",""y"")"');
    expect(csvField('a=b')).toBe('a=b');
  });

  it('ends a record with CRLF', () => {
    expect(csvRecord(['a', 1, 'b,c'])).toBe('a,1,"b,c"\r\n');
  });
});
