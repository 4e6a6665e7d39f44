import {
  channelSchema,
  type Channel,
  type createChannelRequestSchema,
} from '@sluice/contract/schemas/channel';
import type { CHANNEL_STATUS } from '@sluice/contract/statuses';
import { z } from 'zod';
import { api, apiGetFlat, apiGetPage } from '../../lib/api-client.js';

/** The channel calls of spec §7 (admin). */

type ChannelRequest = z.input<typeof createChannelRequestSchema>;

/**
 * The body of POST /api/channel/ and of a full PUT (with `id`): what the form sends. Every field but
 * the status, always; priority and weight left out when blank. The key holds one key per line when
 * batch-creating; empty on update keeps the stored key.
 */
export type ChannelInput = Readonly<
  Required<Omit<ChannelRequest, 'status' | 'priority' | 'weight'>> &
    Pick<ChannelRequest, 'priority' | 'weight'>
>;

export const listChannels = (page: number, size: number) =>
  apiGetPage('/api/channel/', channelSchema, { p: page, size });

export const searchChannels = (keyword: string) =>
  api.get('/api/channel/search', z.array(channelSchema), { keyword });

export const getChannel = (id: number) => api.get(`/api/channel/${id}`, channelSchema);

export const createChannel = (input: ChannelInput) => api.send('POST', '/api/channel/', input);

export const updateChannel = (id: number, input: ChannelInput) =>
  api.put('/api/channel/', { ...input, id }, channelSchema);

/** The statuses the list's toggle sets. */
export type ToggledChannelStatus = typeof CHANNEL_STATUS.enabled | typeof CHANNEL_STATUS.manuallyDisabled;

/** Partial updates of the list: `{id, status}`, `{id, priority}`, `{id, weight}`. */
export const patchChannel = (
  id: number,
  change: { status: ToggledChannelStatus } | { priority: number } | { weight: number },
): Promise<Channel> => api.put('/api/channel/', { id, ...change }, channelSchema);

export const deleteChannel = (id: number) => api.send('DELETE', `/api/channel/${id}/`);

/** DELETE /api/channel/disabled: data is the number of channels deleted. */
export const deleteDisabledChannels = () => api.del('/api/channel/disabled', z.number());

const testResultSchema = z.object({ time: z.number(), model: z.string().catch('') });
export type ChannelTestResult = z.infer<typeof testResultSchema>;

/** GET /api/channel/test/{id}?model=: `time` in seconds and the model used. */
export const testChannel = (id: number, model: string) =>
  apiGetFlat(`/api/channel/test/${id}`, testResultSchema, { model });

export type TestScope = 'all' | 'disabled';

/** GET /api/channel/test?scope=: starts a background run (one at a time). */
export const startChannelTests = (scope: TestScope) =>
  api.send('GET', '/api/channel/test', undefined, { scope });

export const testProgressSchema = z.object({
  running: z.boolean(),
  scope: z.string(),
  done: z.number(),
  total: z.number(),
  failed: z.number(),
});
export type TestProgress = z.infer<typeof testProgressSchema>;

/** GET /api/channel/test/status: the progress of the current (or last) run. */
export const channelTestProgress = () => api.get('/api/channel/test/status', testProgressSchema);

/** GET /api/channel/update_balance/{id}/: the balance read from the provider. */
export const updateChannelBalance = (id: number) =>
  apiGetFlat(`/api/channel/update_balance/${id}/`, z.object({ balance: z.number() })).then(
    (answer) => answer.balance,
  );

/** GET /api/group/: the group names (keys of the group ratio). */
export const listGroups = () => api.get('/api/group/', z.array(z.string()));
