// @vitest-environment happy-dom
import { LOG_TYPE } from '@sluice/contract/statuses';
import { describe, expect, it } from 'vitest';
import { logQuery } from './log-api.js';
import {
  DEFAULT_CLEANUP_AGE_SECONDS,
  defaultLogFilters,
  fromLocalInput,
  toLocalInput,
} from './log-filter-model.js';

describe('log filters', () => {
  it('default to the last 7 days until now plus one hour', () => {
    const now = Date.UTC(2024, 0, 8);
    expect(defaultLogFilters(now)).toMatchObject({
      type: LOG_TYPE.unknown,
      start_timestamp: Date.UTC(2024, 0, 1) / 1000,
      end_timestamp: now / 1000 + 3600,
    });
  });

  it('send username and channel for admins only', () => {
    const filters = {
      ...defaultLogFilters(0),
      start_timestamp: 0,
      token_name: ' key ',
      username: 'bob',
      channel: 3,
    };
    expect(logQuery(filters, false)).toEqual({
      type: LOG_TYPE.unknown,
      token_name: 'key',
      model_name: '',
      start_timestamp: 0,
      end_timestamp: 3600,
    });
    expect(logQuery(filters, true)).toMatchObject({ username: 'bob', channel: 3 });
    expect(logQuery({ ...filters, channel: 0 }, true)).toMatchObject({ channel: '' });
  });

  it('send the client format only when one is chosen', () => {
    expect(logQuery(defaultLogFilters(0), true)).not.toHaveProperty('client_format');
    expect(logQuery({ ...defaultLogFilters(0), client_format: 'gemini' }, false)).toMatchObject({
      client_format: 'gemini',
    });
  });

  it('convert the time fields', () => {
    const seconds = new Date(2024, 1, 2, 3, 4).getTime() / 1000;
    expect(toLocalInput(seconds)).toBe('2024-02-02T03:04');
    expect(fromLocalInput('2024-02-02T03:04')).toBe(seconds);
    expect(toLocalInput(0)).toBe('');
    expect(fromLocalInput('')).toBe(0);
  });

  it('clean up 30 days back by default', () => {
    expect(DEFAULT_CLEANUP_AGE_SECONDS).toBe(30 * 24 * 3600);
  });
});
