import type { Session } from '../services/session-store.js';
import type { UserRow } from '../services/user-record.js';

/** Per-request values shared by the middleware and the route handlers. */
export interface AppEnv {
  Variables: {
    requestId: string;
    user: UserRow;
    session: Session | undefined;
  };
}
