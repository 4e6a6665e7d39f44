import { uuidHex } from '../lib/keys.js';
import { businessError } from '../lib/app-error.js';
import { escapeHtml } from '../lib/html.js';
import { hashPassword } from '../lib/password.js';
import type { ChangeFeed } from './change-feed.js';
import type { CodeStore } from './code-store.js';
import type { Mailer } from './mailer.js';
import type { ServiceDeps } from './service-deps.js';

export const EMAIL_TAKEN = 'the email address is already taken';
export const CODE_WRONG = 'the verification code is wrong or has expired';

/** `<ServerAddress>`, or this instance's own address while the option is empty (one-api's default). */
export const serverAddressOf = (deps: Pick<ServiceDeps, 'options' | 'config'>): string =>
  deps.options.values.ServerAddress.replace(/\/+$/, '') || `http://localhost:${deps.config.port}`;

/** EmailDomainWhitelist: the address must end with `@<domain>` for one of the listed domains. */
export const emailDomainAllowed = (email: string, whitelist: string): boolean => {
  const lower = email.toLowerCase();
  return whitelist
    .split(',')
    .map((domain) => domain.trim().toLowerCase())
    .some((domain) => domain !== '' && lower.endsWith(`@${domain}`));
};

/**
 * Email verification codes (6 hex, 10 minutes), password reset links (32-hex token, 10 minutes) and
 * email binding, over the single-use codes of the database (any instance can check any code).
 */
export const createAccountMailService = (
  deps: ServiceDeps,
  codes: CodeStore,
  mailer: Mailer,
  changes: ChangeFeed,
) => {
  const { db, options } = deps;

  const emailOwner = (email: string, exceptId?: number) => {
    let query = db.selectFrom('users').select('id').where('email', '=', email);
    if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
    return query.executeTakeFirst();
  };

  /** GET /api/verification: for registration and for binding an email. */
  const sendVerificationCode = async (email: string): Promise<void> => {
    const values = options.values;
    if (values.EmailDomainRestrictionEnabled && !emailDomainAllowed(email, values.EmailDomainWhitelist))
      throw businessError(
        'the administrator has enabled an email domain whitelist, and the domain of your address is not in it',
      );
    if (await emailOwner(email)) throw businessError(EMAIL_TAKEN);
    const code = uuidHex().slice(0, 6);
    await codes.put('verify', email, code);
    const name = escapeHtml(values.SystemName);
    await mailer.send(
      email,
      `${values.SystemName} email verification`,
      [
        `<p>Hello, you are verifying your email address for ${name}.</p>`,
        `<p>Your verification code is: <strong>${code}</strong></p>`,
        '<p>The code is valid for 10 minutes. If you did not ask for it, ignore this mail.</p>',
      ].join('\n'),
    );
  };

  /** GET /api/reset_password: mails `<ServerAddress>/user/reset?email=…&token=…`. */
  const sendPasswordReset = async (email: string): Promise<void> => {
    const user = await db
      .selectFrom('users')
      .select(['username', 'display_name'])
      .where('email', '=', email)
      .orderBy('id')
      .executeTakeFirst();
    if (!user) throw businessError('this email address is not registered');
    const token = uuidHex();
    await codes.put('reset', email, token);
    const link = `${serverAddressOf(deps)}/user/reset?email=${encodeURIComponent(email)}&token=${token}`;
    const values = options.values;
    const safeLink = escapeHtml(link);
    await mailer.send(
      email,
      `${values.SystemName} password reset`,
      [
        `<p>Hello ${escapeHtml(user.display_name || user.username)}, you asked to reset your password for ${escapeHtml(values.SystemName)}.</p>`,
        `<p>Open <a href="${safeLink}">this link</a> to reset it: ${safeLink}</p>`,
        '<p>The link is valid for 10 minutes. If you did not ask for it, ignore this mail.</p>',
      ].join('\n'),
    );
  };

  /** POST /api/user/reset: a new 12-hex password for every user with the email; answers it. */
  const resetPassword = async (email: string, token: string): Promise<string> => {
    if (!(await codes.consume('reset', email, token)))
      throw businessError('the reset link is invalid or has expired');
    const password = uuidHex().slice(0, 12);
    await db
      .updateTable('users')
      .set({ password: await hashPassword(password) })
      .where('email', '=', email)
      .execute();
    return password;
  };

  /** GET /api/oauth/email/bind: the code mailed to the address proves the caller owns it. */
  const bindEmail = async (userId: number, email: string, code: string): Promise<void> => {
    if (await emailOwner(email, userId)) throw businessError(EMAIL_TAKEN);
    if (!(await codes.consume('verify', email, code))) throw businessError(CODE_WRONG);
    await db.updateTable('users').set({ email }).where('id', '=', userId).execute();
    await changes.emit({ kind: 'user', id: userId });
  };

  return { sendVerificationCode, sendPasswordReset, resetPassword, bindEmail };
};

export type AccountMailService = ReturnType<typeof createAccountMailService>;
