import { z } from 'zod';
import { callProvider } from './provider-http.js';

export interface TurnstileCheck {
  readonly verifyUrl: string;
  readonly secret: string;
  /** The widget's token the browser sent. */
  readonly response: string;
  /** The visitor's address, when known. */
  readonly remoteIp?: string;
}

const answer = z.object({
  success: z.boolean(),
  'error-codes': z.array(z.string()).optional().default([]),
});

export interface TurnstileResult {
  readonly success: boolean;
  readonly errorCodes: readonly string[];
}

/** Cloudflare siteverify: a form POST of secret, response and remoteip. */
export const verifyTurnstile = async (check: TurnstileCheck): Promise<TurnstileResult> => {
  const form = new URLSearchParams({ secret: check.secret, response: check.response });
  if (check.remoteIp) form.set('remoteip', check.remoteIp);
  const result = await callProvider(
    {
      provider: 'Turnstile',
      url: check.verifyUrl,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form,
    },
    answer,
  );
  return { success: result.success, errorCodes: result['error-codes'] };
};
