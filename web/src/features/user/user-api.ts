import {
  userSchema,
  type createUserRequestSchema,
  type manageUserRequestSchema,
  type updateSelfRequestSchema,
  type updateUserRequestSchema,
  type UserAction,
} from '@sluice/contract/schemas/user';
import { z } from 'zod';
import type { LimitField } from '@sluice/contract/schemas/limits';
import { api, apiGetPage } from '../../lib/api-client.js';
import type { UserOrder } from '@sluice/contract/list-orders';

/** User calls of spec §7 used by the edit form (self and admin). */
export const getSelf = () => api.get('/api/user/self', userSchema);
export const getUser = (id: number) => api.get(`/api/user/${id}`, userSchema);
export const listGroups = () => api.get('/api/group/', z.array(z.string()));
/** DELETE /api/user/:id/2fa: the user's second factors removed. */
export const resetTwoFactor = (id: number) => api.send('DELETE', `/api/user/${id}/2fa`);

/**
 * PUT /api/user/self as the form sends it: every field of the form (blank username and password are
 * kept); the quota alerts are the personal settings' own call.
 */
export type SelfUpdate = Readonly<
  Required<Pick<z.input<typeof updateSelfRequestSchema>, 'username' | 'display_name' | 'password'>>
>;

/** PUT /api/user/ as the admin form sends it: the fields the form edits, always. */
export type AdminUpdate = Readonly<
  Required<
    Pick<
      z.input<typeof updateUserRequestSchema>,
      'id' | 'username' | 'display_name' | 'password' | 'quota' | 'group' | LimitField
    >
  >
>;

export const updateSelf = (input: SelfUpdate) => api.send('PUT', '/api/user/self', input);
export const updateUser = (input: AdminUpdate) => api.send('PUT', '/api/user/', input);

/** Admin user management (spec §7): list by page with an order, search, manage, create. */
export const listUsers = (page: number, order: UserOrder, size: number) =>
  apiGetPage('/api/user/', userSchema, { p: page, order, size });

export const searchUsers = (keyword: string) => api.get('/api/user/search', z.array(userSchema), { keyword });

const manageResultSchema = userSchema.pick({ role: true, status: true });
/** The user's role and status after a manage action. */
export type ManageResult = Readonly<z.infer<typeof manageResultSchema>>;

/** POST /api/user/manage: data is the user's new role and status. */
export const manageUser = (username: string, action: UserAction) =>
  api.post(
    '/api/user/manage',
    { username, action } satisfies z.input<typeof manageUserRequestSchema>,
    manageResultSchema,
  );

/** POST /api/user/ as the add form sends it (no role: an ordinary user). */
export type NewUser = Readonly<
  Required<Pick<z.input<typeof createUserRequestSchema>, 'username' | 'display_name' | 'password'>>
>;

export const createUser = (input: NewUser) => api.send('POST', '/api/user/', input);
