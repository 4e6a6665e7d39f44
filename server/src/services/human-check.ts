import { verifyTurnstile } from '../integrations/turnstile.js';
import type { ServiceDeps } from './service-deps.js';

/** The Turnstile human check (one-api §2.4) with the TurnstileSecretKey in force. */
export const createHumanCheck = (deps: ServiceDeps) => ({
  enabled: (): boolean => deps.options.values.TurnstileCheckEnabled,
  /** True when Cloudflare accepts the widget's token. */
  verify: async (token: string, remoteIp?: string): Promise<boolean> => {
    const result = await verifyTurnstile({
      verifyUrl: deps.config.turnstileVerifyUrl,
      secret: deps.options.values.TurnstileSecretKey,
      response: token,
      ...(remoteIp ? { remoteIp } : {}),
    });
    if (!result.success) deps.logger.info({ errorCodes: result.errorCodes }, 'Turnstile check failed');
    return result.success;
  },
});

export type HumanCheck = ReturnType<typeof createHumanCheck>;
