import {
  recoveryCodesSchema,
  totpSetupSchema,
  twoFactorStatusSchema,
  type twoFactorCodeRequestSchema,
} from '@sluice/contract/schemas/two-factor';
import type { z } from 'zod';
import { api } from '../../../lib/api-client.js';

type CodeBody = z.input<typeof twoFactorCodeRequestSchema>;

/** The caller's two-factor calls (/api/user/2fa…). */
export const getTwoFactorStatus = () => api.get('/api/user/2fa', twoFactorStatusSchema);
export const startTotpSetup = () => api.post('/api/user/2fa/totp/setup', {}, totpSetupSchema);
/** Turns TOTP on with a first code; data: the recovery codes. */
export const enableTotp = async (code: string) =>
  (await api.post('/api/user/2fa/totp/enable', { code } satisfies CodeBody, recoveryCodesSchema))
    .recovery_codes;
export const disableTotp = (code: string) =>
  api.send('POST', '/api/user/2fa/totp/disable', { code } satisfies CodeBody);
export const renewRecoveryCodes = async (code: string) =>
  (await api.post('/api/user/2fa/recovery_codes', { code } satisfies CodeBody, recoveryCodesSchema))
    .recovery_codes;

/** An SVG text as an image address. */
export const svgDataUrl = (svg: string): string =>
  `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
