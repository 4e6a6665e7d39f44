// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { i18n } from '../i18n/i18n.js';
import { createErrorHandler } from './error-handler.js';
import { BusinessError } from './api-client.js';
import { SERVER_MESSAGES, serverText } from './server-messages.js';

const inChinese = (message: string) =>
  serverText(message, (key, values) => i18n.t(key, { ...values, lng: 'zh', defaultValue: message }));

describe('server messages', () => {
  afterEach(async () => {
    await i18n.changeLanguage('en');
  });

  it('translates the messages the console knows, whole or by their start', () => {
    expect(inChinese('username or password is wrong, or the user is banned')).toBe(
      '用户名或密码错误，或用户已被封禁',
    );
    expect(inChinese('redeem failed: invalid redemption code')).toBe('兑换失败：无效的兑换码');
    expect(inChinese('invalid parameter: name: name length must be 1-20')).toBe(
      '参数错误：name: name length must be 1-20',
    );
    expect(inChinese('something new the server says')).toBe('something new the server says');
  });

  it('keeps English as the server sends it', () => {
    for (const message of Object.keys(SERVER_MESSAGES))
      expect(
        serverText(message, (key, values) => i18n.t(key, { ...values, lng: 'en' })),
        message,
      ).toBe(message);
  });

  it('shows business failures in the console language', async () => {
    await i18n.changeLanguage('zh');
    const shown: string[] = [];
    const handle = createErrorHandler({
      showError: (message) => shown.push(message),
      showInfo: () => undefined,
      translate: (key) => key,
      serverText: (message) =>
        serverText(message, (key, values) => i18n.t(key, { ...values, defaultValue: message })),
      redirect: () => undefined,
      currentPath: () => '/',
      clearSession: () => undefined,
    });
    handle(new BusinessError('no permission: insufficient role'));
    expect(shown).toEqual(['无权进行此操作，权限不足']);
  });
});
