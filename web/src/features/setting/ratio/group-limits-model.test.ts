import { describe, expect, it } from 'vitest';
import { groupRows, invalidGroups, withGroupLimits, withGroupStrategy } from './group-limits-model.js';

const RATIO = '{\n  "default": 1,\n  "vip": 0.5\n}';

describe('the group rows of the ratio settings', () => {
  it('lists the group ratio’s groups first, then those only the limits or strategies name', () => {
    const rows = groupRows(RATIO, '{"svip":{"rpm":10}}', '{"vip":"round_robin","x":"bogus"}');
    expect(rows).toEqual([
      {
        group: 'default',
        ratio: 1,
        limits: { rpm_limit: '', tpm_limit: '', concurrency_limit: '' },
        strategy: '',
      },
      {
        group: 'vip',
        ratio: 0.5,
        limits: { rpm_limit: '', tpm_limit: '', concurrency_limit: '' },
        strategy: 'round_robin',
      },
      {
        group: 'svip',
        ratio: undefined,
        limits: { rpm_limit: 10, tpm_limit: '', concurrency_limit: '' },
        strategy: '',
      },
      {
        group: 'x',
        ratio: undefined,
        limits: { rpm_limit: '', tpm_limit: '', concurrency_limit: '' },
        strategy: '',
      },
    ]);
    expect(groupRows('not json', '', '')).toEqual([]);
  });

  it('rewrites one group’s entry, leaves out empty fields and drops a group left without any', () => {
    const text = '{"vip":{"rpm":60},"svip":{"tpm":5}}';
    expect(withGroupLimits(text, 'vip', { rpm_limit: 30, tpm_limit: '', concurrency_limit: 0 })).toBe(
      '{"vip":{"rpm":30,"concurrency":0},"svip":{"tpm":5}}',
    );
    expect(withGroupLimits(text, 'default', { rpm_limit: 1, tpm_limit: '', concurrency_limit: '' })).toBe(
      '{"vip":{"rpm":60},"svip":{"tpm":5},"default":{"rpm":1}}',
    );
    expect(
      withGroupLimits('{"vip":{"rpm":60}}', 'vip', { rpm_limit: '', tpm_limit: '', concurrency_limit: '' }),
    ).toBe('');
    expect(withGroupStrategy('', 'vip', 'lowest_latency')).toBe('{"vip":"lowest_latency"}');
    expect(withGroupStrategy('{"vip":"lowest_latency"}', 'vip', '')).toBe('');
  });

  it('names the groups whose limits are not whole numbers from 0 to the contract’s maximum', () => {
    const rows = groupRows(RATIO, '{"default":{"rpm":1.5},"vip":{"tpm":1e16},"ok":{"rpm":0}}', '');
    expect(invalidGroups(rows)).toEqual(['default', 'vip']);
  });
});
