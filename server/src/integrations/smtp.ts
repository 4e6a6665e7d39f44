import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { businessError, type AppError } from '../lib/app-error.js';
import { PROVIDER_TIMEOUT_MS } from './provider-http.js';

/** The SMTP* options. */
export interface SmtpSettings {
  readonly server: string;
  readonly port: number;
  readonly account: string;
  readonly token: string;
  /** The sender address; the account when empty. */
  readonly from: string;
  /** The sender's display name (SystemName). */
  readonly senderName: string;
}

export interface Mail {
  readonly to: string;
  readonly subject: string;
  readonly html: string;
}

export const SMTP_NOT_CONFIGURED = 'SMTP is not configured';

export const senderOf = (settings: SmtpSettings): string => settings.from.trim() || settings.account.trim();

/**
 * How nodemailer connects: implicit TLS on 465; otherwise plain SMTP that upgrades with STARTTLS when
 * the server offers it; authentication only when an account or a token is set. Certificates are
 * verified (a self-signed SMTP server needs a real certificate).
 */
export const transportOptions = (settings: SmtpSettings): SMTPTransport.Options => {
  const withAuth = settings.account !== '' || settings.token !== '';
  return {
    host: settings.server.trim(),
    port: settings.port,
    secure: settings.port === 465,
    ...(withAuth ? { auth: { user: settings.account, pass: settings.token } } : {}),
    connectionTimeout: PROVIDER_TIMEOUT_MS,
    greetingTimeout: PROVIDER_TIMEOUT_MS,
    socketTimeout: 2 * PROVIDER_TIMEOUT_MS,
  };
};

/** The reason of a failed send, with the SMTP token blanked out should a server ever echo it. */
const reasonOf = (error: unknown, settings: SmtpSettings): string => {
  const message = error instanceof Error ? error.message : String(error);
  return settings.token === '' ? message : message.replaceAll(settings.token, '***');
};

export const sendFailed = (reason: string): AppError => businessError(`failed to send email: ${reason}`);

/** Sends one HTML mail; refuses clearly when SMTP is not configured or the server refuses. */
export const sendMail = async (settings: SmtpSettings, mail: Mail): Promise<void> => {
  const sender = senderOf(settings);
  if (settings.server.trim() === '' || sender === '') throw businessError(SMTP_NOT_CONFIGURED);
  if (mail.to.trim() === '') throw sendFailed('the receiver is empty');
  // nodemailer loads on the first mail: most instances never send one.
  const { createTransport } = await import('nodemailer');
  const transport = createTransport(transportOptions(settings));
  try {
    await transport.sendMail({
      from: { name: settings.senderName, address: sender },
      to: mail.to,
      subject: mail.subject,
      html: mail.html,
    });
  } catch (error) {
    throw sendFailed(reasonOf(error, settings));
  } finally {
    transport.close();
  }
};
