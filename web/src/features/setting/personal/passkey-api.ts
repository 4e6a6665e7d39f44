import { passkeySchema, type passkeyRenameRequestSchema } from '@sluice/contract/schemas/passkey';
import { z } from 'zod';
import { api } from '../../../lib/api-client.js';

/** The caller's passkeys (/api/user/passkey…); adding one is `registerPasskey` (lib/passkey.ts). */
export const listPasskeys = () => api.get('/api/user/passkey', z.array(passkeySchema));
export const renamePasskey = (id: number, name: string) =>
  api.send('PUT', `/api/user/passkey/${id}`, { name } satisfies z.input<typeof passkeyRenameRequestSchema>);
export const deletePasskey = (id: number) => api.send('DELETE', `/api/user/passkey/${id}`);
