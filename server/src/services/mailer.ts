import { sendMail, type SmtpSettings } from '../integrations/smtp.js';
import { escapeHtml } from '../lib/html.js';
import type { OptionStore } from './option-store.js';

export const smtpSettingsOf = (options: OptionStore): SmtpSettings => {
  const values = options.values;
  return {
    server: values.SMTPServer,
    port: values.SMTPPort,
    account: values.SMTPAccount,
    token: values.SMTPToken,
    from: values.SMTPFrom,
    senderName: values.SystemName,
  };
};

/** The mail layout: a title, the body (HTML the caller escaped), and the site's name. */
export const mailHtml = (title: string, bodyHtml: string, systemName: string): string =>
  [
    '<!DOCTYPE html><html><head><meta charset="UTF-8"></head>',
    '<body style="font-family: Arial, sans-serif; line-height: 1.6; color: #333;">',
    `<h2>${escapeHtml(title)}</h2>`,
    `<div>${bodyHtml}</div>`,
    `<p style="color: #888; font-size: 13px;">This mail was sent automatically by ${escapeHtml(systemName)}; please do not reply.</p>`,
    '</body></html>',
  ].join('\n');

/** Mail over the SMTP options in force at the moment of sending. */
export const createMailer = (options: OptionStore) => ({
  /** `bodyHtml` must already be HTML (escape user-controlled text with escapeHtml). */
  send: async (to: string, subject: string, bodyHtml: string): Promise<void> => {
    await sendMail(smtpSettingsOf(options), {
      to,
      subject,
      html: mailHtml(subject, bodyHtml, options.values.SystemName),
    });
  },
});

export type Mailer = ReturnType<typeof createMailer>;
