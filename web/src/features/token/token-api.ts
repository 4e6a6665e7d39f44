import {
  tokenSchema,
  type createTokenRequestSchema,
  type Token,
  type tokenStatusRequestSchema,
} from '@sluice/contract/schemas/token';
import { z } from 'zod';
import { api, apiGetPage } from '../../lib/api-client.js';
import type { TokenOrder } from '@sluice/contract/list-orders';
import type { LimitField } from '@sluice/contract/schemas/limits';

/** The token calls of spec §7 (the caller's own tokens). */

/**
 * The body of POST /api/token/ and of a full PUT (with `id`): every field, always (a PUT without one
 * would reset it to the schema's default). The limits and budgets may be left out: unset on create,
 * unchanged on update.
 */
export type TokenInput = Readonly<
  Required<Omit<z.input<typeof createTokenRequestSchema>, LimitField>> &
    Pick<z.input<typeof createTokenRequestSchema>, LimitField>
>;

/** The statuses a token's toggle sets (enabled, disabled). */
export type ToggledTokenStatus = z.input<typeof tokenStatusRequestSchema>['status'];

export const listTokens = (page: number, order: TokenOrder, size: number) =>
  apiGetPage('/api/token/', tokenSchema, { p: page, order, size });

export const searchTokens = (keyword: string) =>
  api.get('/api/token/search', z.array(tokenSchema), { keyword });

export const getToken = (id: number) => api.get(`/api/token/${id}`, tokenSchema);

export const createToken = (input: TokenInput) => api.post('/api/token/', input, tokenSchema);

export const updateToken = (id: number, input: TokenInput) =>
  api.put('/api/token/', { id, ...input }, tokenSchema);

/** Enable or disable: the answer is the updated token. */
export const setTokenStatus = (token: Token, status: ToggledTokenStatus) =>
  api.put('/api/token/', { id: token.id, status }, tokenSchema, { status_only: true });

export const deleteToken = (id: number) => api.send('DELETE', `/api/token/${id}/`);

/** GET /api/user/available_models: the models of the caller's group. */
export const availableModels = () => api.get('/api/user/available_models', z.array(z.string()));
