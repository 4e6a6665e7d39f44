import { USER_LIMITS } from '@sluice/contract/schemas/user';
import { USER_STATUS } from '@sluice/contract/statuses';
import { AppError, businessError } from '../lib/app-error.js';
import { randomAlphanumeric, uuidHex } from '../lib/keys.js';
import { nowSeconds } from '../lib/time.js';
import type { ChangeFeed } from './change-feed.js';
import type { CodeStore } from './code-store.js';
import {
  OAUTH_PROVIDERS,
  fetchExternalAccount,
  type ExternalAccount,
  type OAuthProvider,
} from './oauth-accounts.js';
import type { ServiceDeps } from './service-deps.js';
import { insertUser } from './user-creation.js';
import type { UserRow } from './user-record.js';

export const USER_BANNED = 'the user is banned';
const NAME_ATTEMPTS = 50;

/**
 * Third-party login and binding (one-api §3.3): the OAuth state of a session, login or creation of
 * the user behind a provider account, and binding an account to the signed-in user.
 */
export const createOAuthService = (deps: ServiceDeps, codes: CodeStore, changes: ChangeFeed) => {
  const { db, dialect, options } = deps;

  /** GET /api/oauth/state: 12 random [0-9a-zA-Z], valid 10 minutes, for this session only. */
  const issueState = async (sessionId: string): Promise<string> => {
    const state = randomAlphanumeric(12);
    await codes.put('oauth', sessionId, state);
    return state;
  };

  /** The state matches and has not expired (it stays usable until a callback succeeds). */
  const stateMatches = async (sessionId: string, state: string): Promise<boolean> => {
    if (state === '') return false;
    const row = await db
      .selectFrom('sluice_codes')
      .select('code')
      .where('purpose', '=', 'oauth')
      .where('key', '=', sessionId)
      .where('code', '=', state)
      .where('expires_at', '>', nowSeconds())
      .executeTakeFirst();
    return row !== undefined;
  };

  /** Uses the state up: false when another callback already did. */
  const consumeState = (sessionId: string, state: string): Promise<boolean> =>
    codes.consume('oauth', sessionId, state);

  const account = (provider: OAuthProvider, code: string): Promise<ExternalAccount> =>
    fetchExternalAccount(deps, provider, code);

  const findByAccount = (provider: OAuthProvider, id: string): Promise<UserRow | undefined> =>
    db
      .selectFrom('users')
      .selectAll()
      .where(OAUTH_PROVIDERS[provider].column, '=', id)
      .orderBy('id')
      .executeTakeFirst();

  /** `<prefix><max id + 1>`, moving on to the next number while the name is taken (one-api collides). */
  const createUser = async (provider: OAuthProvider, external: ExternalAccount): Promise<number> => {
    const table = OAUTH_PROVIDERS[provider];
    const max = await db
      .selectFrom('users')
      .select((eb) => eb.fn.max('id').as('max'))
      .executeTakeFirst();
    let next = Number(max?.max ?? 0) + 1;
    for (let attempt = 0; attempt < NAME_ATTEMPTS; attempt += 1, next += 1) {
      const username = `${table.usernamePrefix}${next}`;
      const taken = await db
        .selectFrom('users')
        .select('id')
        .where('username', '=', username)
        .executeTakeFirst();
      if (taken) continue;
      try {
        return await db.transaction().execute((trx) =>
          insertUser(
            trx,
            dialect,
            {
              username,
              // Never told to anyone: the user signs in through the provider, or sets a password later.
              password: uuidHex(),
              displayName: (external.displayName || table.defaultDisplayName).slice(
                0,
                USER_LIMITS.displayNameMax,
              ),
              // A provider's address longer than a user's email may be is left out rather than refused.
              email: external.email.length <= USER_LIMITS.emailMax ? external.email : '',
              ...(provider === 'github' ? { githubId: external.id } : {}),
              ...(provider === 'lark' ? { larkId: external.id } : {}),
              ...(provider === 'wechat' ? { wechatId: external.id } : {}),
            },
            options.values,
          ),
        );
      } catch (error) {
        if (!(error instanceof AppError && error.message === 'username already taken')) throw error;
      }
    }
    throw businessError('could not find a free username, please try again');
  };

  /** Login mode: the user bound to the account, or a new one when registration is open. */
  const login = async (provider: OAuthProvider, external: ExternalAccount): Promise<UserRow> => {
    let user = await findByAccount(provider, external.id);
    if (!user) {
      if (!options.values.RegisterEnabled)
        throw businessError('the administrator has closed new-user registration');
      const id = await createUser(provider, external);
      user = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    }
    if (user.status !== USER_STATUS.enabled) throw businessError(USER_BANNED);
    return user;
  };

  /** Bind mode: the account must not be bound to anyone yet (the caller included). */
  const bind = async (provider: OAuthProvider, userId: number, external: ExternalAccount): Promise<void> => {
    const table = OAUTH_PROVIDERS[provider];
    if (await findByAccount(provider, external.id)) throw businessError(table.alreadyBound);
    await db
      .updateTable('users')
      .set({ [table.column]: external.id })
      .where('id', '=', userId)
      .execute();
    await changes.emit({ kind: 'user', id: userId });
  };

  return { issueState, stateMatches, consumeState, account, login, bind };
};

export type OAuthService = ReturnType<typeof createOAuthService>;
