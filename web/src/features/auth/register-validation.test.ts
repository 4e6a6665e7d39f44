// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { en } from '../../i18n/en.js';
import { zh } from '../../i18n/zh.js';
import { problemSeverity, validateRegistration, type RegisterInput } from './register-validation.js';

const input = (overrides: Partial<RegisterInput> = {}): RegisterInput => ({
  username: 'alice',
  password: 'password1',
  password2: 'password1',
  email: '',
  verificationCode: '',
  ...overrides,
});
const off = { emailVerification: false, turnstileEnabled: false, turnstileToken: '' };

describe('registration checks (spec §5)', () => {
  it('accepts a complete form', () => {
    expect(validateRegistration(input(), off)).toBeUndefined();
  });

  it('needs a username and a password', () => {
    expect(validateRegistration(input({ username: '  ' }), off)).toBe('auth.validation.required');
    expect(validateRegistration(input({ password: '' }), off)).toBe('auth.validation.required');
  });

  it("rejects a password shorter than 8 with 'password length must not be less than 8'", () => {
    expect(validateRegistration(input({ password: 'short', password2: 'short' }), off)).toBe(
      'auth.validation.passwordTooShort',
    );
    expect(en.auth.validation.passwordTooShort).toBe('Password length must not be less than 8!');
    expect(zh.auth.validation.passwordTooShort).toBe('密码长度不得小于 8 位！');
  });

  it("rejects a mismatch with 'the two passwords entered do not match'", () => {
    expect(validateRegistration(input({ password2: 'password2' }), off)).toBe(
      'auth.validation.passwordMismatch',
    );
    expect(en.auth.validation.passwordMismatch).toBe('The two passwords entered do not match!');
  });

  it('asks for email and code when email verification is on', () => {
    const on = { ...off, emailVerification: true };
    expect(validateRegistration(input(), on)).toBe('auth.validation.emailCodeRequired');
    expect(validateRegistration(input({ email: 'a@b.c', verificationCode: '123456' }), on)).toBeUndefined();
  });

  it('warns while the human check has no result yet', () => {
    const checking = { ...off, turnstileEnabled: true };
    expect(validateRegistration(input(), checking)).toBe('auth.validation.turnstilePending');
    expect(problemSeverity('auth.validation.turnstilePending')).toBe('warning');
    expect(problemSeverity('auth.validation.passwordTooShort')).toBe('info');
    expect(en.auth.validation.turnstilePending).toBe(
      'Please retry in a few seconds, Turnstile is checking the user environment!',
    );
    expect(validateRegistration(input(), { ...checking, turnstileToken: 'token' })).toBeUndefined();
  });
});
