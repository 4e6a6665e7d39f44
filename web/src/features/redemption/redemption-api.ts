import {
  redemptionSchema,
  type createRedemptionRequestSchema,
  type Redemption,
  type redemptionStatusRequestSchema,
  type updateRedemptionRequestSchema,
} from '@sluice/contract/schemas/redemption';
import { z } from 'zod';
import { api, apiGetPage } from '../../lib/api-client.js';

/** The redemption calls of spec §7 (admin). */

/** The body of PUT /api/redemption/ without its `id`: name and quota. */
export type RedemptionInput = Readonly<Omit<z.input<typeof updateRedemptionRequestSchema>, 'id'>>;

/** The body of POST /api/redemption/: name, quota and how many codes (one when left out). */
export type RedemptionCreation = Readonly<z.input<typeof createRedemptionRequestSchema>>;

/** The statuses a code's toggle sets (unused, disabled). */
export type ToggledRedemptionStatus = z.input<typeof redemptionStatusRequestSchema>['status'];

export const listRedemptions = (page: number, size: number) =>
  apiGetPage('/api/redemption/', redemptionSchema, { p: page, size });

export const searchRedemptions = (keyword: string) =>
  api.get('/api/redemption/search', z.array(redemptionSchema), { keyword });

export const getRedemption = (id: number) => api.get(`/api/redemption/${id}`, redemptionSchema);

/** POST /api/redemption/: data is the list of generated codes. */
export const createRedemptions = (input: Required<RedemptionCreation>) =>
  api.post('/api/redemption/', input, z.array(z.string()));

export const updateRedemption = (id: number, input: RedemptionInput) =>
  api.put('/api/redemption/', { id, ...input }, redemptionSchema);

/** Enable or disable an unused code. */
export const setRedemptionStatus = (redemption: Redemption, status: ToggledRedemptionStatus) =>
  api.put('/api/redemption/', { id: redemption.id, status }, redemptionSchema, { status_only: true });

export const deleteRedemption = (id: number) => api.send('DELETE', `/api/redemption/${id}/`);
