import { TOKEN_STATUS } from '@sluice/contract/statuses';
import { describe, expect, it } from 'vitest';
import { entryOf } from './entry-of.js';

describe('entryOf', () => {
  const table = { [TOKEN_STATUS.enabled]: 'on', [TOKEN_STATUS.disabled]: 'off' } as const;

  it('finds the row of a known key', () => {
    expect(entryOf(table, TOKEN_STATUS.enabled)).toBe('on');
    expect(entryOf(table, TOKEN_STATUS.disabled)).toBe('off');
  });

  it('answers undefined for any other number', () => {
    expect(entryOf(table, TOKEN_STATUS.expired)).toBeUndefined();
    expect(entryOf(table, 0)).toBeUndefined();
    expect(entryOf(table, -1)).toBeUndefined();
  });
});
