import { USER_STATUS } from '@sluice/contract/statuses';
import { businessError } from '../lib/app-error.js';
import { randomAlphanumeric } from '../lib/keys.js';
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
import { insertExternalUser } from './user-creation.js';
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
    const first = Number(max?.max ?? 0) + 1;
    const names = Array.from(
      { length: NAME_ATTEMPTS },
      (_, index) => `${table.usernamePrefix}${first + index}`,
    );
    return insertExternalUser(db, dialect, options.values, names, {
      displayName: external.displayName || table.defaultDisplayName,
      email: external.email,
      ...(provider === 'github' ? { githubId: external.id } : {}),
      ...(provider === 'lark' ? { larkId: external.id } : {}),
      ...(provider === 'wechat' ? { wechatId: external.id } : {}),
    });
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
