import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router';
import { vi } from 'vitest';
import { Providers } from '../app/providers.js';
import { createQueryClient } from '../lib/query-client.js';

/**
 * Component-test helpers (happy-dom): render a screen inside the console's providers and a memory
 * router, and answer `fetch` with envelopes per path.
 */
export const renderScreen = (
  element: ReactElement,
  options: { path?: string; at?: string; routes?: RouteObject[] } = {},
) => {
  const path = options.path ?? '/';
  const router = createMemoryRouter(
    [{ path, element }, ...(options.routes ?? []), { path: '*', element: <p data-testid="elsewhere" /> }],
    { initialEntries: [options.at ?? path] },
  );
  const view = render(
    <Providers queryClient={createQueryClient()}>
      <RouterProvider router={router} />
    </Providers>,
  );
  return { router, ...view };
};

export type Answer =
  { success: boolean; message?: string; data?: unknown } | { status: number; body: unknown };

/**
 * Stubs `fetch`: each request is answered by the first handler whose path prefix matches (handlers
 * given as arrays answer in turn). Returns the mock to inspect the calls.
 */
export const stubApi = (handlers: Record<string, Answer | Answer[]>) => {
  const queues = new Map(
    Object.entries(handlers).map(([prefix, answer]) => [
      prefix,
      Array.isArray(answer) ? [...answer] : [answer],
    ]),
  );
  const mock = vi.fn((input: string | URL | Request) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const entry = [...queues.entries()].find(([prefix]) => url.startsWith(prefix));
    if (!entry) return Promise.reject(new TypeError(`no stub for ${url}`));
    const queue = entry[1];
    const answer = (queue.length > 1 ? queue.shift() : queue[0])!;
    const [status, body] =
      'status' in answer ? [answer.status, answer.body] : [200, { message: '', ...answer }];
    return Promise.resolve(
      new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } }),
    );
  });
  vi.stubGlobal('fetch', mock);
  return mock;
};
