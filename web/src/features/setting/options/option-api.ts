import {
  optionSchema,
  type updateOptionRequestSchema,
  type updateOptionsRequestSchema,
} from '@sluice/contract/schemas/option';
import { z } from 'zod';
import { api } from '../../../lib/api-client.js';

/** The option calls of spec §7 (root only on the server). */
export const getOptions = () => api.get('/api/option/', z.array(optionSchema));

export const putOption = (key: string, value: string) =>
  api.send('PUT', '/api/option/', { key, value } satisfies z.input<typeof updateOptionRequestSchema>);

/** Sluice's own PUT /api/option/batch: several options, all or nothing (the server names a refused one). */
export const putOptions = (updates: Readonly<z.input<typeof updateOptionsRequestSchema>>) =>
  api.send('PUT', '/api/option/batch', updates);

/** Sluice's own GET /api/option/defaults: the shipped default of each option, shown as GET /api/option/ shows values. */
export const getOptionDefaults = () => api.get('/api/option/defaults', z.array(optionSchema));

/** Sluice's own GET /api/channel/served_models: the models of every channel, sorted. */
export const getServedModels = () => api.get('/api/channel/served_models', z.array(z.string()));

/** The public release feed of the open-source project (spec §7, check for update). */
export const RELEASE_FEED_URL = 'https://api.github.com/repos/songquanpeng/one-api/releases/latest';

export const releaseSchema = z.object({
  tag_name: z.string(),
  body: z.string().nullable().default(''),
  html_url: z.string().optional(),
});
export type Release = z.infer<typeof releaseSchema>;

/** The latest release; throws when the feed cannot be reached or answers something else. */
export const latestRelease = async (signal?: AbortSignal): Promise<Release> => {
  const response = await fetch(RELEASE_FEED_URL, { headers: { accept: 'application/json' }, signal });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return releaseSchema.parse(await response.json());
};

/** DELETE /api/log/?target_timestamp=: clears the history before a time; data is the count. */
export const deleteLogsBefore = (seconds: number) =>
  api.del('/api/log/', z.number(), { target_timestamp: seconds });

/** Spec §7: the cleanup cutoff defaults to 30 days before now. */
export const DEFAULT_CLEANUP_AGE_SECONDS = 2_592_000;
