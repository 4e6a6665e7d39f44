import { z } from 'zod';
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import { generateSessionId } from '../lib/keys.js';
import { nowSeconds } from '../lib/time.js';

/** Sessions live 30 days, as one-api's cookie does. */
export const SESSION_TTL_SECONDS = 30 * 24 * 3600;

const sessionDataSchema = z.object({
  oauth_state: z.string().optional(),
  turnstile: z.boolean().optional(),
  /** A sign-in waiting for its second factor: the user (the session itself stays signed out, user 0). */
  mfa_user: z.number().optional(),
  /** Until when (seconds) that sign-in may be completed. */
  mfa_until: z.number().optional(),
  /** How its first step was passed (password, github…), for the audit row. */
  mfa_method: z.string().optional(),
  /** An OpenID Connect sign-in in progress: the checks of its authorization request, until when it may end. */
  oidc_state: z.string().optional(),
  oidc_nonce: z.string().optional(),
  oidc_verifier: z.string().optional(),
  oidc_until: z.number().optional(),
  /** The WebAuthn challenge given to this browser (single use), what it is for, and until when. */
  webauthn_challenge: z.string().optional(),
  webauthn_purpose: z.enum(['register', 'login']).optional(),
  webauthn_until: z.number().optional(),
});
export type SessionData = z.infer<typeof sessionDataSchema>;

export interface Session {
  readonly id: string;
  readonly userId: number;
  readonly data: SessionData;
}

const parseData = (raw: string | null): SessionData => {
  try {
    const parsed = sessionDataSchema.safeParse(JSON.parse(raw ?? '{}'));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
};

/** Server-side sessions in the database: a logout revokes the cookie on every instance at once. */
export const createSessionStore = (db: Kysely<Tables>) => ({
  create: async (userId: number, data: SessionData = {}): Promise<Session> => {
    const id = generateSessionId();
    const now = nowSeconds();
    await db
      .insertInto('sluice_sessions')
      .values({
        id,
        user_id: userId,
        data: JSON.stringify(data),
        created_at: now,
        expires_at: now + SESSION_TTL_SECONDS,
      })
      .execute();
    return { id, userId, data };
  },
  find: async (id: string): Promise<Session | undefined> => {
    const row = await db
      .selectFrom('sluice_sessions')
      .select(['id', 'user_id', 'data', 'expires_at'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row || row.expires_at <= nowSeconds()) return undefined;
    return { id: row.id, userId: row.user_id, data: parseData(row.data) };
  },
  update: async (id: string, userId: number, data: SessionData): Promise<void> => {
    await db
      .updateTable('sluice_sessions')
      .set({ user_id: userId, data: JSON.stringify(data) })
      .where('id', '=', id)
      .execute();
  },
  remove: async (id: string): Promise<void> => {
    await db.deleteFrom('sluice_sessions').where('id', '=', id).execute();
  },
  removeForUser: async (userId: number): Promise<void> => {
    await db.deleteFrom('sluice_sessions').where('user_id', '=', userId).execute();
  },
  purgeExpired: async (): Promise<number> => {
    const result = await db
      .deleteFrom('sluice_sessions')
      .where('expires_at', '<=', nowSeconds())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },
});

export type SessionStore = ReturnType<typeof createSessionStore>;
