// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import {
  addDomain,
  collectUpdates,
  formValues,
  invalidRatio,
  normalizeAddress,
  parseWhitelist,
  shownValue,
  whitelistUpdate,
} from './option-save-model.js';

describe('option values as the forms show them', () => {
  it('pretty-prints ratio JSON and shows {} as empty', () => {
    expect(shownValue('GroupRatio', '{"default":1}')).toBe('{\n  "default": 1\n}');
    expect(shownValue('CompletionRatio', '{}')).toBe('');
    expect(shownValue('Notice', '{}')).toBe('');
    expect(shownValue('ModelRatio', 'not json')).toBe('not json');
    expect(formValues([{ key: 'SystemName', value: 'Sluice' }])).toEqual({ SystemName: 'Sluice' });
  });
});

describe('saving a section (spec §5)', () => {
  const original = {
    SMTPServer: 'smtp.example.com',
    SMTPPort: '587',
    SMTPAccount: '',
    ServerAddress: 'https://a.example.com',
  };

  it('sends only the changed values', () => {
    expect(
      collectUpdates(['SMTPServer', 'SMTPPort', 'SMTPAccount'], original, {
        ...original,
        SMTPAccount: 'mailer',
      }),
    ).toEqual([{ key: 'SMTPAccount', value: 'mailer' }]);
    expect(collectUpdates(['SMTPServer', 'SMTPPort'], original, original)).toEqual([]);
  });

  it('sends secret fields only when they are not empty', () => {
    expect(collectUpdates(['SMTPServer', 'SMTPToken'], original, { ...original, SMTPToken: '' })).toEqual([]);
    expect(collectUpdates(['SMTPToken'], original, { SMTPToken: 's3cret' })).toEqual([
      { key: 'SMTPToken', value: 's3cret' },
    ]);
    expect(collectUpdates(['GitHubClientSecret'], {}, { GitHubClientSecret: 'x' })).toEqual([
      { key: 'GitHubClientSecret', value: 'x' },
    ]);
  });

  it('normalises the server address before comparing and saving', () => {
    expect(normalizeAddress(' https://b.example.com/// ')).toBe('https://b.example.com');
    expect(collectUpdates(['ServerAddress'], original, { ServerAddress: 'https://a.example.com/' })).toEqual(
      [],
    );
    expect(collectUpdates(['ServerAddress'], original, { ServerAddress: 'https://b.example.com/' })).toEqual([
      { key: 'ServerAddress', value: 'https://b.example.com' },
    ]);
    expect(
      collectUpdates(['WeChatServerAddress'], {}, { WeChatServerAddress: 'https://w.example.com/' }),
    ).toEqual([{ key: 'WeChatServerAddress', value: 'https://w.example.com' }]);
  });

  it('keeps a number left empty and saves an emptied ratio as {}', () => {
    expect(
      collectUpdates(['SMTPPort', 'RetryTimes'], { RetryTimes: '0' }, { SMTPPort: '', RetryTimes: '' }),
    ).toEqual([]);
    expect(collectUpdates(['QuotaPerUnit'], { QuotaPerUnit: '500000' }, { QuotaPerUnit: '0.5' })).toEqual([
      { key: 'QuotaPerUnit', value: '0.5' },
    ]);
    expect(collectUpdates(['GroupRatio'], { GroupRatio: '{"vip":1}' }, { GroupRatio: '  ' })).toEqual([
      { key: 'GroupRatio', value: '{}' },
    ]);
  });

  it('names the first ratio that is not valid JSON', () => {
    expect(invalidRatio([{ key: 'ModelRatio', value: '{"gpt-4o": 2.5}' }])).toBeUndefined();
    expect(
      invalidRatio([
        { key: 'SystemName', value: '{' },
        { key: 'CompletionRatio', value: '{"a": }' },
        { key: 'GroupRatio', value: '{' },
      ]),
    ).toBe('CompletionRatio');
  });
});

describe('the email domain whitelist (spec §5)', () => {
  it('ignores an empty or present domain when adding', () => {
    const list = parseWhitelist('gmail.com, qq.com,,');
    expect(list).toEqual(['gmail.com', 'qq.com']);
    expect(addDomain(list, '   ')).toBe(list);
    expect(addDomain(list, ' qq.com ')).toBe(list);
    expect(addDomain(list, 'example.com')).toEqual(['gmail.com', 'qq.com', 'example.com']);
  });

  it('is saved only when changed', () => {
    expect(whitelistUpdate('gmail.com, qq.com', ['gmail.com', 'qq.com'])).toBeUndefined();
    expect(whitelistUpdate('gmail.com,qq.com', ['gmail.com'])).toEqual({
      key: 'EmailDomainWhitelist',
      value: 'gmail.com',
    });
  });
});
