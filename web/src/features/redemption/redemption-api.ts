import { redemptionSchema, type Redemption } from '@sluice/contract/schemas/redemption';
import { z } from 'zod';
import { api } from '../../lib/api-client.js';

/** The redemption calls of spec §7 (admin). */

export interface RedemptionInput {
  readonly name: string;
  readonly quota: number;
}

export const listRedemptions = (page: number) =>
  api.get('/api/redemption/', z.array(redemptionSchema), { p: page });

export const searchRedemptions = (keyword: string) =>
  api.get('/api/redemption/search', z.array(redemptionSchema), { keyword });

export const getRedemption = (id: number) => api.get(`/api/redemption/${id}`, redemptionSchema);

/** POST /api/redemption/: data is the list of generated codes. */
export const createRedemptions = (input: RedemptionInput & { readonly count: number }) =>
  api.post('/api/redemption/', input, z.array(z.string()));

export const updateRedemption = (id: number, input: RedemptionInput) =>
  api.put('/api/redemption/', { id, ...input }, redemptionSchema);

/** Enable (1) or disable (2) an unused code. */
export const setRedemptionStatus = (redemption: Redemption, status: 1 | 2) =>
  api.put('/api/redemption/', { id: redemption.id, status }, redemptionSchema, { status_only: true });

export const deleteRedemption = (id: number) => api.send('DELETE', `/api/redemption/${id}/`);
