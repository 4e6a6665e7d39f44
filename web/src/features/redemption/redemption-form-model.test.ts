// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import {
  codesFileName,
  codesFileText,
  EMPTY_REDEMPTION_FORM,
  redemptionInputOf,
} from './redemption-form-model.js';

describe('redemption form (spec §5, §9)', () => {
  it('defaults to 100000 quota and one code', () => {
    expect(EMPTY_REDEMPTION_FORM).toEqual({ name: '', quota: 100_000, count: 1 });
  });

  it('needs a name on creation, and sends the count only then', () => {
    expect(redemptionInputOf({ ...EMPTY_REDEMPTION_FORM, name: '  ' }, true)).toEqual({
      problem: 'redemption.nameRequired',
    });
    expect(redemptionInputOf({ name: ' promo ', quota: '2500', count: 3 }, true)).toEqual({
      input: { name: 'promo', quota: 2500, count: 3 },
    });
    expect(redemptionInputOf({ name: 'promo', quota: 10.9, count: 3 }, false)).toEqual({
      input: { name: 'promo', quota: 10 },
    });
  });

  it('refuses a count outside 1 to 100 instead of clamping it', () => {
    for (const count of [101, 1000, 0, -3, 2.5, ''])
      expect(redemptionInputOf({ name: 'promo', quota: 1, count }, true), String(count)).toEqual({
        problem: 'redemption.countRange',
      });
    expect(redemptionInputOf({ name: 'promo', quota: 1, count: 100 }, true)).toEqual({
      input: { name: 'promo', quota: 1, count: 100 },
    });
    // Editing sends no count: whatever the field holds does not matter.
    expect(redemptionInputOf({ name: 'promo', quota: 1, count: 500 }, false)).toEqual({
      input: { name: 'promo', quota: 1 },
    });
  });

  it('downloads one code per line, named after the name', () => {
    expect(codesFileText(['a1', 'b2'])).toBe('a1\nb2\n');
    expect(codesFileName(' promo ')).toBe('promo.txt');
  });
});
