import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { handleError } from './error-handler.js';

declare module '@tanstack/react-query' {
  interface Register {
    /** `meta.errorFallback`: the text shown when a call fails without an answer (spec §8, top-up). */
    mutationMeta: { errorFallback?: string; silent?: boolean };
    queryMeta: { silent?: boolean };
  }
}

/**
 * The query client: every failed query and mutation is reported once, by the one error handler
 * (spec §8). A failed list shows its message and an empty state; nothing is retried behind the
 * user's back except one retry of reads that did not reach the server.
 */
export const createQueryClient = (report = handleError): QueryClient =>
  new QueryClient({
    queryCache: new QueryCache({
      onError: (error, query) => {
        if (!query.meta?.silent) report(error);
      },
    }),
    mutationCache: new MutationCache({
      onError: (error, _variables, _context, mutation) => {
        if (!mutation.meta?.silent) report(error, { fallback: mutation.meta?.errorFallback });
      },
    }),
    defaultOptions: {
      queries: {
        retry: (count, error) => count < 1 && error instanceof TypeError,
        refetchOnWindowFocus: false,
      },
    },
  });
