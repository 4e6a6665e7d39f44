import { createCodeStore } from './code-store.js';
import type { ServiceDeps } from './service-deps.js';
import { createSessionStore } from './session-store.js';
import { createUserService } from './user-service.js';

/** Every service, built once from the shared dependencies. */
export const createServices = (deps: ServiceDeps) => {
  const sessions = createSessionStore(deps.db);
  const codes = createCodeStore(deps.db, deps.dialect);
  const users = createUserService(deps, codes, sessions);
  return { deps, options: deps.options, sessions, codes, users };
};

export type Services = ReturnType<typeof createServices>;
