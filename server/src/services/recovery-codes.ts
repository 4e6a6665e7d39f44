import { createHash, randomInt } from 'node:crypto';
import { RECOVERY_CODE_COUNT } from '@sluice/contract/schemas/two-factor';
import type { Kysely } from 'kysely';
import { sqlNumber } from '../db/sql-number.js';
import type { Tables } from '../db/tables.js';

/** 32 letters and digits without the look-alikes (0/O, 1/I): 5 bits each, 16 of them per code (80 bits). */
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const CODE_LENGTH = 16;

const newCode = (): string => {
  let code = '';
  for (let index = 0; index < CODE_LENGTH; index += 1) code += ALPHABET[randomInt(ALPHABET.length)];
  return code.match(/.{4}/g)?.join('-') ?? code;
};

/** A code as typed (any case, with or without dashes and spaces) reduced to its letters and digits. */
export const normaliseRecoveryCode = (code: string): string => code.toUpperCase().replace(/[^A-Z0-9]/g, '');

/** Whether a typed code has the shape of a recovery code (not of a 6-digit TOTP code). */
export const looksLikeRecoveryCode = (code: string): boolean =>
  normaliseRecoveryCode(code).length === CODE_LENGTH;

/** SHA-256 of the normalised code: 80 random bits need no slow hash, and a lookup stays one query. */
const hashOf = (code: string): string =>
  createHash('sha256').update(normaliseRecoveryCode(code)).digest('hex');

/** A user's single-use recovery codes: stored hashed, shown once, each deleted by its use. */
export const createRecoveryCodes = (db: Kysely<Tables>) => ({
  /** Replaces the user's codes with RECOVERY_CODE_COUNT new ones and answers them (the only time they are seen). */
  replace: async (userId: number): Promise<string[]> => {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode);
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('sluice_recovery_codes').where('user_id', '=', userId).execute();
      await trx
        .insertInto('sluice_recovery_codes')
        .values(codes.map((code) => ({ user_id: userId, code_hash: hashOf(code) })))
        .execute();
    });
    return codes;
  },
  /** Uses a code: true when it was one of the user's unused codes (two concurrent uses: one wins). */
  consume: async (userId: number, code: string): Promise<boolean> => {
    if (!looksLikeRecoveryCode(code)) return false;
    const result = await db
      .deleteFrom('sluice_recovery_codes')
      .where('user_id', '=', userId)
      .where('code_hash', '=', hashOf(code))
      .executeTakeFirst();
    return sqlNumber(result.numDeletedRows) === 1;
  },
  count: async (userId: number): Promise<number> => {
    const row = await db
      .selectFrom('sluice_recovery_codes')
      .select((eb) => eb.fn.countAll().as('count'))
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return sqlNumber(row?.count);
  },
  removeAll: async (userId: number): Promise<void> => {
    await db.deleteFrom('sluice_recovery_codes').where('user_id', '=', userId).execute();
  },
});

export type RecoveryCodes = ReturnType<typeof createRecoveryCodes>;
