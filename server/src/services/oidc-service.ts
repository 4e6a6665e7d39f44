import { readOidcGroupMapping } from '@sluice/contract/schemas/oidc';
import { USER_LIMITS } from '@sluice/contract/schemas/user';
import { USER_STATUS } from '@sluice/contract/statuses';
import { isUniqueViolation } from '../db/unique-violation.js';
import {
  createOidcClient,
  type OidcChecks,
  type OidcClaims,
  type OidcClient,
} from '../integrations/oidc-client.js';
import { businessError } from '../lib/app-error.js';
import { serverAddressOf } from './account-mail-service.js';
import type { ChangeFeed } from './change-feed.js';
import { USER_BANNED } from './oauth-service.js';
import type { OptionValues } from './option-values.js';
import type { ServiceDeps } from './service-deps.js';
import { insertExternalUser } from './user-creation.js';
import type { UserRow } from './user-record.js';

export const OIDC_OFF = 'the administrator has not enabled sign-in with OpenID Connect';
export const OIDC_DOMAIN_REFUSED = 'this email domain may not sign in with OpenID Connect';
export const OIDC_ALREADY_BOUND = 'this OpenID Connect account is already bound';
export const OIDC_NO_SUBJECT = 'the OpenID provider did not say who signed in';
const NAME_ATTEMPTS = 50;

/** Whether OpenID Connect sign-in is on and has what it needs (the status record's `oidc`). */
export const oidcConfigured = (values: OptionValues): boolean =>
  values.OidcEnabled && values.OidcWellKnown.trim() !== '' && values.OidcClientId.trim() !== '';

/** The account a provider vouched for, as Sluice names and places it. */
export interface OidcAccount {
  readonly subject: string;
  readonly username: string;
  readonly displayName: string;
  readonly email: string;
  /** The Sluice group its group claim maps to ('' when none does). */
  readonly group: string;
}

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');
const texts = (value: unknown): string[] =>
  Array.isArray(value) ? value.map(text).filter((item) => item !== '') : text(value) ? [text(value)] : [];

const domainAllowed = (email: string, allowed: string): boolean => {
  const domains = allowed
    .split(',')
    .map((domain) => domain.trim().toLowerCase().replace(/^@/, ''))
    .filter((domain) => domain !== '');
  if (domains.length === 0) return true;
  const at = email.lastIndexOf('@');
  return at > 0 && domains.includes(email.slice(at + 1).toLowerCase());
};

/**
 * OpenID Connect sign-in and binding: the authorization request (its checks kept by the caller in
 * the session), the callback's claims turned into an account (allowed email domains, the username
 * claim, the group claim mapped by OidcGroupMapping), then the user bound to the subject signed in
 * or created, or the subject bound to (or unbound from) a signed-in user. Users are found by the
 * subject alone: an existing user with the same name or address is never taken over.
 */
export const createOidcService = (
  deps: ServiceDeps,
  changes: ChangeFeed,
  client: OidcClient = createOidcClient(),
) => {
  const { db, dialect, options } = deps;

  const settings = () => {
    const values = options.values;
    if (!oidcConfigured(values)) throw businessError(OIDC_OFF);
    return {
      issuer: values.OidcWellKnown,
      clientId: values.OidcClientId,
      clientSecret: values.OidcClientSecret,
    };
  };
  const redirectUri = () => `${serverAddressOf(deps)}/oauth/oidc`;

  const accountOf = (claims: OidcClaims): OidcAccount => {
    const values = options.values;
    const subject = text(claims['sub']);
    if (subject === '') throw businessError(OIDC_NO_SUBJECT);
    const email = claims['email_verified'] === false ? '' : text(claims['email']);
    if (values.OidcAllowedDomains.trim() !== '' && !domainAllowed(email, values.OidcAllowedDomains))
      throw businessError(OIDC_DOMAIN_REFUSED);
    const mapping = readOidcGroupMapping(values.OidcGroupMapping);
    const claimed = values.OidcGroupClaim.trim() === '' ? [] : texts(claims[values.OidcGroupClaim.trim()]);
    const group = mapping.ok ? (claimed.map((value) => mapping.mapping[value]).find(Boolean) ?? '') : '';
    return {
      subject,
      username: text(claims[values.OidcUsernameClaim.trim() || 'preferred_username']),
      displayName: text(claims['name']),
      email,
      group,
    };
  };

  const findBySubject = (subject: string) =>
    db.selectFrom('users').selectAll().where('oidc_id', '=', subject).orderBy('id').executeTakeFirst();

  /** The claimed name when it is a free, valid username; else `oidc_<max id + 1>` (the next free one). */
  const namesFor = async function* (account: OidcAccount): AsyncGenerator<string> {
    if (account.username !== '' && account.username.length <= USER_LIMITS.usernameMax) yield account.username;
    const max = await db
      .selectFrom('users')
      .select((eb) => eb.fn.max('id').as('max'))
      .executeTakeFirst();
    const first = Number(max?.max ?? 0) + 1;
    for (let next = first; next < first + NAME_ATTEMPTS; next += 1) yield `oidc_${next}`;
  };

  const create = (account: OidcAccount): Promise<number> =>
    insertExternalUser(db, dialect, options.values, namesFor(account), {
      displayName: account.displayName,
      email: account.email,
      oidcId: account.subject,
      ...(account.group ? { group: account.group } : {}),
    });

  return {
    redirectUri,
    /** A new authorization request: the address to send the browser to, and the checks to keep. */
    start: () =>
      client.authorizationUrl(settings(), { redirectUri: redirectUri(), scope: options.values.OidcScopes }),
    /** The account of a callback (its query as the provider sent it), checked against the kept checks. */
    account: async (query: string, checks: OidcChecks): Promise<OidcAccount> =>
      accountOf(await client.claims(settings(), new URL(`${redirectUri()}?${query}`), checks)),
    /** The user of the subject (its group kept in step with the mapping), or a new one when allowed. */
    login: async (account: OidcAccount): Promise<UserRow> => {
      let user = await findBySubject(account.subject);
      if (!user) {
        if (!options.values.RegisterEnabled || !options.values.OidcRegisterEnabled)
          throw businessError('the administrator has closed new-user registration');
        const id = await create(account);
        user = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      } else if (account.group !== '' && account.group !== user.group) {
        await db.updateTable('users').set({ group: account.group }).where('id', '=', user.id).execute();
        await changes.emit({ kind: 'user', id: user.id });
        user = { ...user, group: account.group };
      }
      if (user.status !== USER_STATUS.enabled) throw businessError(USER_BANNED);
      return user;
    },
    bind: async (userId: number, account: OidcAccount): Promise<void> => {
      if (await findBySubject(account.subject)) throw businessError(OIDC_ALREADY_BOUND);
      try {
        await db.updateTable('users').set({ oidc_id: account.subject }).where('id', '=', userId).execute();
      } catch (error) {
        if (isUniqueViolation(error)) throw businessError(OIDC_ALREADY_BOUND);
        throw error;
      }
      await changes.emit({ kind: 'user', id: userId });
    },
    unbind: async (userId: number): Promise<void> => {
      await db.updateTable('users').set({ oidc_id: '' }).where('id', '=', userId).execute();
      await changes.emit({ kind: 'user', id: userId });
    },
  };
};

export type OidcService = ReturnType<typeof createOidcService>;
