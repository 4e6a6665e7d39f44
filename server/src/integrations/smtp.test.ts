import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../test-support/smtp-sink.js';
import { SMTP_NOT_CONFIGURED, sendMail, transportOptions, type SmtpSettings } from './smtp.js';

const settings = (overrides: Partial<SmtpSettings> = {}): SmtpSettings => ({
  server: '127.0.0.1',
  port: 587,
  account: '',
  token: '',
  from: '',
  senderName: 'Sluice',
  ...overrides,
});

describe('transportOptions', () => {
  it('uses implicit TLS on 465 and STARTTLS (when offered) on any other port', () => {
    expect(transportOptions(settings({ port: 465 })).secure).toBe(true);
    expect(transportOptions(settings({ port: 587 })).secure).toBe(false);
    expect(transportOptions(settings({ port: 25 })).secure).toBe(false);
    expect(transportOptions(settings({ port: 587 })).ignoreTLS).toBeUndefined();
  });

  it('authenticates only when an account or a token is set', () => {
    expect(transportOptions(settings()).auth).toBeUndefined();
    expect(transportOptions(settings({ account: 'bot@example.com', token: 'pw' })).auth).toEqual({
      user: 'bot@example.com',
      pass: 'pw',
    });
  });

  it('gives up on a silent server after 5 s', () => {
    expect(transportOptions(settings())).toMatchObject({ connectionTimeout: 5000, greetingTimeout: 5000 });
  });
});

describe('sendMail over a real SMTP server', () => {
  let open: SmtpSink;
  let guarded: SmtpSink;
  beforeAll(async () => {
    open = await startSmtpSink();
    guarded = await startSmtpSink({ user: 'bot@example.com', pass: 'smtp-secret-token' });
  });
  afterAll(async () => {
    await open?.close();
    await guarded?.close();
  });

  it('sends without authentication when account and token are empty, From = SMTPFrom', async () => {
    await sendMail(settings({ port: open.port, from: 'noreply@example.com', senderName: 'My Gateway' }), {
      to: 'alice@example.com',
      subject: 'Hello',
      html: '<p>code: <b>abc123</b></p>',
    });
    const mail = await open.next('alice@example.com');
    expect(mail.user).toBeUndefined();
    expect(mail.envelopeFrom).toBe('noreply@example.com');
    expect(mail.headers.get('from')).toBe('My Gateway <noreply@example.com>');
    expect(mail.subject).toBe('Hello');
    expect(mail.body).toContain('<p>code: <b>abc123</b></p>');
  });

  it('logs in with account and token, and sends from the account when SMTPFrom is empty', async () => {
    await sendMail(settings({ port: guarded.port, account: 'bot@example.com', token: 'smtp-secret-token' }), {
      to: 'bob@example.com',
      subject: 'Hi',
      html: '<p>hi</p>',
    });
    const mail = await guarded.next('bob@example.com');
    expect(mail.user).toBe('bot@example.com');
    expect(mail.envelopeFrom).toBe('bot@example.com');
  });

  it('answers a clear error without the token when the server refuses the login', async () => {
    const attempt = sendMail(
      settings({ port: guarded.port, account: 'bot@example.com', token: 'wrong-token-123' }),
      {
        to: 'bob@example.com',
        subject: 'Hi',
        html: '<p>hi</p>',
      },
    );
    await expect(attempt).rejects.toThrow(/^failed to send email: /);
    await attempt.catch((error: Error) => expect(error.message).not.toContain('wrong-token-123'));
  });

  it('answers a clear error when the server refuses the recipient', async () => {
    open.refuseRecipients = true;
    try {
      await expect(
        sendMail(settings({ port: open.port, from: 'noreply@example.com' }), {
          to: 'carol@example.com',
          subject: 'Hi',
          html: '<p>hi</p>',
        }),
      ).rejects.toThrow(/^failed to send email: .*550/);
    } finally {
      open.refuseRecipients = false;
    }
  });

  it('refuses at once when SMTP is not configured', async () => {
    const mail = { to: 'dave@example.com', subject: 'Hi', html: '<p>hi</p>' };
    await expect(sendMail(settings({ server: '' }), mail)).rejects.toThrow(SMTP_NOT_CONFIGURED);
    await expect(sendMail(settings({ port: open.port }), mail)).rejects.toThrow(SMTP_NOT_CONFIGURED);
  });

  it('answers a clear error when nothing listens', async () => {
    await expect(
      sendMail(settings({ port: 1, from: 'noreply@example.com' }), {
        to: 'erin@example.com',
        subject: 'Hi',
        html: '<p>hi</p>',
      }),
    ).rejects.toThrow(/^failed to send email: .*ECONNREFUSED/);
  });
});
