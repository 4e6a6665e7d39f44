import { userSchema, type UserAction } from '@sluice/contract/schemas/user';
import { z } from 'zod';
import { api } from '../../lib/api-client.js';

/** User calls of spec §7 used by the edit form (self and admin). */
export const getSelf = () => api.get('/api/user/self', userSchema);
export const getUser = (id: number) => api.get(`/api/user/${id}`, userSchema);
export const listGroups = () => api.get('/api/group/', z.array(z.string()));

export interface SelfUpdate {
  readonly username: string;
  readonly display_name: string;
  readonly password: string;
}

export interface AdminUpdate extends SelfUpdate {
  readonly id: number;
  readonly quota: number;
  readonly group: string;
}

export const updateSelf = (input: SelfUpdate) => api.send('PUT', '/api/user/self', input);
export const updateUser = (input: AdminUpdate) => api.send('PUT', '/api/user/', input);

/** Admin user management (spec §7): list by page with an order, search, manage, create. */
export const USER_ORDERS = ['', 'quota', 'used_quota', 'request_count'] as const;
export type UserOrder = (typeof USER_ORDERS)[number];

export const listUsers = (page: number, order: UserOrder) =>
  api.get('/api/user/', z.array(userSchema), { p: page, order });

export const searchUsers = (keyword: string) => api.get('/api/user/search', z.array(userSchema), { keyword });

/** POST /api/user/manage: data is the user's new role and status. */
export const manageUser = (username: string, action: UserAction) =>
  api.post('/api/user/manage', { username, action }, z.object({ role: z.number(), status: z.number() }));

export interface NewUser {
  readonly username: string;
  readonly display_name: string;
  readonly password: string;
}

export const createUser = (input: NewUser) => api.send('POST', '/api/user/', input);
