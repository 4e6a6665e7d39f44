import { userSchema } from '@sluice/contract/schemas/user';
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
