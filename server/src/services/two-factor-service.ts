import { isAdminRole } from '@sluice/contract/roles';
import {
  TWO_FACTOR_LOCK_SECONDS,
  TWO_FACTOR_MAX_FAILURES,
  type TotpSetup,
  type TwoFactorStatus,
} from '@sluice/contract/schemas/two-factor';
import { Secret, TOTP } from 'otpauth';
import { renderSVG } from 'uqr';
import { sqlNumber } from '../db/sql-number.js';
import { businessError } from '../lib/app-error.js';
import { nowSeconds } from '../lib/time.js';
import { createRecoveryCodes } from './recovery-codes.js';
import type { ServiceDeps } from './service-deps.js';

export const TWO_FACTOR_WRONG = 'the two-factor code is wrong';
export const TWO_FACTOR_REPLAYED = 'this two-factor code has already been used: wait for the next one';
export const TWO_FACTOR_LOCKED =
  'too many wrong two-factor codes: two-factor sign-in is locked for 15 minutes';
export const TWO_FACTOR_NOT_ON = 'two-factor authentication is not on';
export const TWO_FACTOR_ALREADY_ON = 'two-factor authentication is already on';
export const TWO_FACTOR_NO_SETUP = 'start the two-factor setup first';

/** RFC 6238 as authenticator apps use it: SHA-1, 6 digits, 30 s; a code of the step before or after is taken too. */
const PERIOD = 30;
const WINDOW = 1;

const totpOf = (secret: string, issuer: string, label: string) =>
  new TOTP({
    issuer,
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD,
    secret: Secret.fromBase32(secret),
  });

/** How a second factor was given: a code of the authenticator app, or a recovery code. */
export type CodeKind = 'totp' | 'recovery_code';

interface Account {
  readonly id: number;
  readonly username: string;
  readonly role: number;
}

/**
 * TOTP two-factor sign-in (otpauth): set up with a new secret (QR code), turned on by a first code,
 * which gives RECOVERY_CODE_COUNT recovery codes. Every code check goes through `verify`: a code is
 * taken once (the last accepted time step is kept, and only a later step passes, atomically), and
 * TWO_FACTOR_MAX_FAILURES wrong codes in a row lock the user's codes for TWO_FACTOR_LOCK_SECONDS.
 */
export const createTwoFactorService = (deps: Pick<ServiceDeps, 'db' | 'options'>) => {
  const { db, options } = deps;
  const recovery = createRecoveryCodes(db);

  const rowOf = (userId: number) =>
    db.selectFrom('sluice_totp').selectAll().where('user_id', '=', userId).executeTakeFirst();
  const confirmedRow = async (userId: number) => {
    const row = await rowOf(userId);
    return row && sqlNumber(row.confirmed_at) > 0 ? row : undefined;
  };
  const issuer = () => options.values.SystemName || 'Sluice';

  /** The time step a 6-digit code is valid for, or undefined. */
  const stepOf = (secret: string, code: string): number | undefined => {
    if (!/^\d{6}$/.test(code)) return undefined;
    const now = Date.now();
    const delta = totpOf(secret, '', '').validate({ token: code, timestamp: now, window: WINDOW });
    return delta === null ? undefined : TOTP.counter({ period: PERIOD, timestamp: now }) + delta;
  };

  /** Takes the step if no later or equal step was taken before (one winner under concurrency). */
  const takeStep = async (userId: number, step: number): Promise<boolean> => {
    const result = await db
      .updateTable('sluice_totp')
      .set({ last_step: step, failures: 0 })
      .where('user_id', '=', userId)
      .where('last_step', '<', step)
      .executeTakeFirst();
    return sqlNumber(result.numUpdatedRows) === 1;
  };

  /** Counts a wrong code; the last one allowed locks the user's codes. Throws the refusal. */
  const refuse = async (userId: number, message: string): Promise<never> => {
    await db
      .updateTable('sluice_totp')
      .set((eb) => ({ failures: eb('failures', '+', 1) }))
      .where('user_id', '=', userId)
      .execute();
    const row = await rowOf(userId);
    if (row && sqlNumber(row.failures) >= TWO_FACTOR_MAX_FAILURES) {
      await db
        .updateTable('sluice_totp')
        .set({ failures: 0, locked_until: nowSeconds() + TWO_FACTOR_LOCK_SECONDS })
        .where('user_id', '=', userId)
        .execute();
      throw businessError(TWO_FACTOR_LOCKED);
    }
    throw businessError(message);
  };

  /** Checks a code of a user whose TOTP is on: an authenticator code or an unused recovery code. */
  const verify = async (userId: number, code: string): Promise<CodeKind> => {
    const row = await confirmedRow(userId);
    if (!row) throw businessError(TWO_FACTOR_NOT_ON);
    if (sqlNumber(row.locked_until) > nowSeconds()) throw businessError(TWO_FACTOR_LOCKED);
    const step = stepOf(row.secret, code);
    if (step !== undefined) {
      if (await takeStep(userId, step)) return 'totp';
      return refuse(userId, TWO_FACTOR_REPLAYED);
    }
    if (await recovery.consume(userId, code)) {
      await db.updateTable('sluice_totp').set({ failures: 0 }).where('user_id', '=', userId).execute();
      return 'recovery_code';
    }
    return refuse(userId, TWO_FACTOR_WRONG);
  };

  const removeTotp = async (userId: number): Promise<void> => {
    await db.deleteFrom('sluice_totp').where('user_id', '=', userId).execute();
    await recovery.removeAll(userId);
  };
  const passkeyCount = async (userId: number): Promise<number> => {
    const row = await db
      .selectFrom('sluice_passkeys')
      .select((eb) => eb.fn.countAll().as('count'))
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return sqlNumber(row?.count);
  };

  return {
    verify,
    /** The second factors a sign-in of the user waits for: a TOTP code, a passkey. */
    factorsOf: async (userId: number): Promise<{ totp: boolean; passkey: boolean }> => ({
      totp: (await confirmedRow(userId)) !== undefined,
      passkey: (await passkeyCount(userId)) > 0,
    }),
    /** Whether the user has a second factor at all (TOTP or a passkey). */
    hasSecondFactor: async (userId: number): Promise<boolean> =>
      (await confirmedRow(userId)) !== undefined || (await passkeyCount(userId)) > 0,
    status: async (account: Account): Promise<TwoFactorStatus> => ({
      totp: (await confirmedRow(account.id)) !== undefined,
      recovery_codes: await recovery.count(account.id),
      passkeys: await passkeyCount(account.id),
      required: options.values.TwoFactorRequiredForAdmins && isAdminRole(account.role),
    }),
    /** A new secret, not yet in force: the user confirms it with a code (`enable`). */
    setup: async (account: Account): Promise<TotpSetup> => {
      if (await confirmedRow(account.id)) throw businessError(TWO_FACTOR_ALREADY_ON);
      const secret = new Secret({ size: 20 }).base32;
      const row = { secret, confirmed_at: 0, last_step: 0, failures: 0, locked_until: 0 };
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('sluice_totp').where('user_id', '=', account.id).execute();
        await trx
          .insertInto('sluice_totp')
          .values({ user_id: account.id, ...row })
          .execute();
      });
      const uri = totpOf(secret, issuer(), account.username).toString();
      return { secret, uri, qr_svg: renderSVG(uri, { border: 2 }) };
    },
    /** Turns TOTP on with a first code of the new secret; answers the recovery codes. */
    enable: async (userId: number, code: string): Promise<string[]> => {
      const row = await rowOf(userId);
      if (!row) throw businessError(TWO_FACTOR_NO_SETUP);
      if (sqlNumber(row.confirmed_at) > 0) throw businessError(TWO_FACTOR_ALREADY_ON);
      const step = stepOf(row.secret, code);
      if (step === undefined) throw businessError(TWO_FACTOR_WRONG);
      await db
        .updateTable('sluice_totp')
        .set({ confirmed_at: nowSeconds(), last_step: step, failures: 0 })
        .where('user_id', '=', userId)
        .execute();
      return recovery.replace(userId);
    },
    /** Turns TOTP off: a code (or a recovery code) proves the user still holds it. */
    disable: async (userId: number, code: string): Promise<void> => {
      await verify(userId, code);
      await removeTotp(userId);
    },
    /** New recovery codes (the old ones stop working), for a current code. */
    renewRecoveryCodes: async (userId: number, code: string): Promise<string[]> => {
      await verify(userId, code);
      return recovery.replace(userId);
    },
    /** An administrator's reset: the user's TOTP, recovery codes and passkeys are gone. */
    reset: async (userId: number): Promise<void> => {
      await removeTotp(userId);
      await db.deleteFrom('sluice_passkeys').where('user_id', '=', userId).execute();
    },
  };
};

export type TwoFactorService = ReturnType<typeof createTwoFactorService>;
