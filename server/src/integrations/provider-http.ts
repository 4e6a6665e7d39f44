import type { z } from 'zod';
import { businessError, type AppError } from '../lib/app-error.js';

/** one-api gives every third-party call 5 seconds. */
export const PROVIDER_TIMEOUT_MS = 5000;

export interface ProviderRequest {
  /** The provider's name, as the user reads it in an error ("GitHub", "Lark", …). */
  readonly provider: string;
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly headers?: Record<string, string>;
  readonly body?: string | URLSearchParams;
  readonly timeoutMs?: number;
}

export const unreachable = (provider: string): AppError =>
  businessError(`cannot reach the ${provider} server, please try again later`);

export const unexpectedAnswer = (provider: string): AppError =>
  businessError(`the ${provider} server answered something unexpected, please try again later`);

/**
 * Calls a provider and parses its JSON answer with `schema`, whatever the HTTP status (providers put
 * their error details in the JSON body). Errors name the provider, never the URL, the headers or the
 * body, so no secret (client secret, token) can reach a message.
 */
export const callProvider = async <T extends z.ZodType>(
  request: ProviderRequest,
  schema: T,
): Promise<z.output<T>> => {
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: request.method ?? 'GET',
      headers: request.headers ?? {},
      ...(request.body === undefined ? {} : { body: request.body }),
      signal: AbortSignal.timeout(request.timeoutMs ?? PROVIDER_TIMEOUT_MS),
      redirect: 'error',
    });
  } catch {
    throw unreachable(request.provider);
  }
  let json: unknown;
  try {
    json = await response.json();
  } catch {
    throw unexpectedAnswer(request.provider);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw unexpectedAnswer(request.provider);
  return parsed.data;
};
