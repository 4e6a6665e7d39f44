// @vitest-environment happy-dom
import { act, renderHook } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  readStorage,
  removeStorage,
  setPromptShown,
  shouldShowPrompt,
  useStoredValue,
  writeStorage,
} from './storage.js';

const status = {
  version: 'v1',
  start_time: 1,
  email_verification: false,
  github_oauth: false,
  github_client_id: '',
  lark_client_id: '',
  system_name: 'Gateway',
  logo: '',
  footer_html: '',
  wechat_qrcode: '',
  wechat_login: false,
  server_address: '',
  turnstile_check: false,
  turnstile_site_key: '',
  top_up_link: '',
  chat_link: '',
  quota_per_unit: 500000,
  display_in_currency: true,
  oidc: false,
  oidc_client_id: '',
  oidc_well_known: '',
  pricing_public: false,
};

describe('browser storage', () => {
  beforeEach(() => localStorage.clear());

  it('keeps the login record and drops fields it does not know', () => {
    writeStorage('user', { id: 1, username: 'root', display_name: 'Root', role: 100, status: 1 });
    expect(readStorage('user')).toEqual({
      id: 1,
      username: 'root',
      display_name: 'Root',
      role: 100,
      status: 1,
    });
    localStorage.setItem(
      'user',
      JSON.stringify({ id: 2, username: 'a', display_name: '', role: 1, status: 1, token: 'x' }),
    );
    expect(readStorage('user')).toEqual({ id: 2, username: 'a', display_name: '', role: 1, status: 1 });
  });

  it('reads a value that does not parse as absent, and removes it', () => {
    localStorage.setItem('user', '{not json');
    expect(readStorage('user')).toBeUndefined();
    expect(localStorage.getItem('user')).toBeNull();
    localStorage.setItem('user', JSON.stringify({ id: 'one', username: 'a' }));
    expect(readStorage('user')).toBeUndefined();
    localStorage.setItem('language', 'fr');
    expect(readStorage('language')).toBeUndefined();
  });

  it('stores numbers and booleans as text, as one-api does', () => {
    writeStorage('quota_per_unit', 500000);
    writeStorage('display_in_currency', false);
    expect(localStorage.getItem('quota_per_unit')).toBe('500000');
    expect(localStorage.getItem('display_in_currency')).toBe('false');
    expect(readStorage('quota_per_unit')).toBe(500000);
    expect(readStorage('display_in_currency')).toBe(false);
    localStorage.setItem('quota_per_unit', 'lots');
    expect(readStorage('quota_per_unit')).toBeUndefined();
    localStorage.setItem('display_in_currency', 'yes');
    expect(readStorage('display_in_currency')).toBeUndefined();
  });

  it('stores strings raw and records as JSON', () => {
    writeStorage('system_name', 'Gateway');
    expect(localStorage.getItem('system_name')).toBe('Gateway');
    writeStorage('status', status);
    expect(readStorage('status')).toEqual(status);
    writeStorage('channel_models', { '1': ['gpt-4o'] });
    expect(readStorage('channel_models')).toEqual({ '1': ['gpt-4o'] });
  });

  it('shows a prompt until its flag is set', () => {
    expect(shouldShowPrompt('channel-test')).toBe(true);
    setPromptShown('channel-test');
    expect(localStorage.getItem('prompt-channel-test')).toBe('true');
    expect(shouldShowPrompt('channel-test')).toBe(false);
  });

  it('re-renders readers when a key is written or removed', () => {
    const { result } = renderHook(() => useStoredValue('system_name'));
    expect(result.current).toBeUndefined();
    act(() => writeStorage('system_name', 'Gateway'));
    expect(result.current).toBe('Gateway');
    act(() => removeStorage('system_name'));
    expect(result.current).toBeUndefined();
  });
});
