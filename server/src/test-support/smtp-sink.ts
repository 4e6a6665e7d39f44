import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One mail the sink received, decoded enough for a test to read it. */
export interface ReceivedMail {
  readonly envelopeFrom: string;
  readonly envelopeTo: readonly string[];
  /** The authenticated user, when the client logged in. */
  readonly user: string | undefined;
  readonly headers: ReadonlyMap<string, string>;
  readonly subject: string;
  /** The decoded body (HTML for Sluice's mails). */
  readonly body: string;
}

export interface SmtpSink {
  readonly host: string;
  readonly port: number;
  readonly mails: ReceivedMail[];
  /** Resolves with the next mail sent to `to` (already received or still to come). */
  next(to: string, timeoutMs?: number): Promise<ReceivedMail>;
  /** Refuse every recipient (550) until set back to false. */
  refuseRecipients: boolean;
  close(): Promise<void>;
}

const decodeQuotedPrintable = (text: string): string => {
  const bytes: number[] = [];
  const joined = text.replace(/=\r?\n/g, '');
  for (let index = 0; index < joined.length; index += 1) {
    const char = joined[index] ?? '';
    const hex = joined.slice(index + 1, index + 3);
    if (char === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      index += 2;
    } else bytes.push(...Buffer.from(char, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
};

const decodeWords = (value: string): string =>
  value.replace(/=\?utf-8\?([bq])\?([^?]*)\?=/gi, (_, encoding: string, text: string) =>
    encoding.toLowerCase() === 'b'
      ? Buffer.from(text, 'base64').toString('utf8')
      : decodeQuotedPrintable(text.replaceAll('_', ' ')),
  );

/** Splits a single-part message into unfolded headers and its decoded body. */
export const parseMail = (raw: string): { headers: Map<string, string>; body: string } => {
  const split = raw.search(/\r?\n\r?\n/);
  const head = split < 0 ? raw : raw.slice(0, split);
  const rest = split < 0 ? '' : raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0)
      headers.set(line.slice(0, colon).trim().toLowerCase(), decodeWords(line.slice(colon + 1).trim()));
  }
  const encoding = (headers.get('content-transfer-encoding') ?? '').toLowerCase();
  const body =
    encoding === 'quoted-printable'
      ? decodeQuotedPrintable(rest)
      : encoding === 'base64'
        ? Buffer.from(rest.replace(/\s+/g, ''), 'base64').toString('utf8')
        : rest;
  return { headers, body };
};

/**
 * A real SMTP server on loopback (smtp-server) that keeps every mail. STARTTLS is hidden (its test
 * certificate is self-signed); with `auth`, only that user and password may log in (over plain text).
 */
export const startSmtpSink = async (auth?: { user: string; pass: string }): Promise<SmtpSink> => {
  const mails: ReceivedMail[] = [];
  const waiters: { to: string; resolve: (mail: ReceivedMail) => void }[] = [];
  const state = { refuseRecipients: false };
  const server = new SMTPServer({
    hideSTARTTLS: true,
    authOptional: auth === undefined,
    allowInsecureAuth: true,
    ...(auth ? {} : { disabledCommands: ['AUTH'] }),
    logger: false,
    onAuth: (credentials, _session, callback) => {
      if (auth && credentials.username === auth.user && credentials.password === auth.pass)
        callback(null, { user: credentials.username });
      else callback(new Error('Invalid username or password'));
    },
    onRcptTo: (_address, _session, callback) => {
      if (state.refuseRecipients) {
        const error = Object.assign(new Error('mailbox unavailable'), { responseCode: 550 });
        callback(error);
      } else callback();
    },
    onData: (stream, session, callback) => {
      const parts: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => parts.push(chunk));
      stream.on('end', () => {
        const { headers, body } = parseMail(Buffer.concat(parts).toString('utf8'));
        const envelopeFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        const mail: ReceivedMail = {
          envelopeFrom,
          envelopeTo: session.envelope.rcptTo.map((address) => address.address),
          user: typeof session.user === 'string' ? session.user : undefined,
          headers,
          subject: headers.get('subject') ?? '',
          body,
        };
        mails.push(mail);
        for (const waiter of [...waiters])
          if (mail.envelopeTo.includes(waiter.to)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(mail);
          }
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  const seen = new Map<string, number>();
  return {
    host: '127.0.0.1',
    port,
    mails,
    get refuseRecipients() {
      return state.refuseRecipients;
    },
    set refuseRecipients(value: boolean) {
      state.refuseRecipients = value;
    },
    next: (to, timeoutMs = 10_000) => {
      // Each call hands out the next mail for `to` not handed out before.
      const already = mails.filter((mail) => mail.envelopeTo.includes(to));
      const index = seen.get(to) ?? 0;
      seen.set(to, index + 1);
      const ready = already[index];
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no mail to ${to} within ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          to,
          resolve: (mail) => {
            clearTimeout(timer);
            resolve(mail);
          },
        });
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
