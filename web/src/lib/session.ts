import { isAdminRole, isRootRole } from '@sluice/contract/roles';
import { z } from 'zod';
import {
  readStorage,
  removeStorage,
  storedUserSchema,
  useStoredValue,
  writeStorage,
  type StoredUser,
} from './storage.js';

/**
 * The session of spec §4: the user record kept in browser storage after login. The server's
 * session cookie is the real credential; the stored record drives guards and menus.
 */
export const currentUser = (): StoredUser | undefined => readStorage('user');

/** Keeps the login answer (extra fields are dropped). */
export const signIn = (user: unknown): StoredUser => {
  const stored = storedUserSchema.parse(user);
  writeStorage('user', stored);
  return stored;
};

export const signOut = (): void => removeStorage('user');

/** Spec §6: admin from role 10, root from role 100; no user is an ordinary user. */
export const isAdmin = (user: StoredUser | undefined): boolean => (user ? isAdminRole(user.role) : false);
export const isRoot = (user: StoredUser | undefined): boolean => (user ? isRootRole(user.role) : false);

export interface Session {
  readonly user: StoredUser | undefined;
  readonly isAdmin: boolean;
  readonly isRoot: boolean;
}

/** The session as React state: re-renders on login and logout (in any tab). */
export const useSession = (): Session => {
  const user = useStoredValue('user');
  return { user, isAdmin: isAdmin(user), isRoot: isRoot(user) };
};

/** The location state a guard leaves for /login: where the visitor wanted to go. */
const fromStateSchema = z.object({
  from: z.object({ pathname: z.string(), search: z.string().default(''), hash: z.string().default('') }),
});

/** The remembered origin of a guarded visit (undefined when /login was opened directly). */
export const originOf = (state: unknown): string | undefined => {
  const parsed = fromStateSchema.safeParse(state);
  if (!parsed.success || parsed.data.from.pathname === '/login') return undefined;
  const { pathname, search, hash } = parsed.data.from;
  return `${pathname}${search}${hash}`;
};

/**
 * Logout and self deletion go to /login with this state; the login page then forgets the user.
 * Forgetting it on the guarded page instead would make that page's guard remember it as the origin.
 */
export const SIGNED_OUT_STATE = { signedOut: true } as const;

export const isSignedOutState = (state: unknown): boolean =>
  z.object({ signedOut: z.literal(true) }).safeParse(state).success;
