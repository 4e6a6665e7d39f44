import type { z } from 'zod';
import { api } from './api-client.js';
import { channelModelsSchema, readStorage, writeStorage } from './storage.js';

export type ChannelModels = z.infer<typeof channelModelsSchema>;

let memory: ChannelModels | undefined;

/**
 * The default models per channel type (spec §7): cached in memory and under `channel_models` after a
 * successful load; the cached copy answers at once while the next load is under way.
 */
export const cachedChannelModels = (): ChannelModels | undefined =>
  (memory ??= readStorage('channel_models'));

export const loadChannelModels = async (): Promise<ChannelModels> => {
  const models = await api.get('/api/models', channelModelsSchema);
  memory = models;
  writeStorage('channel_models', models);
  return models;
};
