import type { Context, MiddlewareHandler } from 'hono';
import type { AuditActor } from '../../services/audit-service.js';
import type { Services } from '../../services/services.js';
import type { AppEnv } from '../../http/app-env.js';
import { clientIp } from '../../http/client-ip.js';
import { matchAuditedRoute, type AuditRequest } from './audited-routes.js';

const readBody = async (c: Context<AppEnv>): Promise<unknown> => {
  try {
    // Hono keeps the parsed body: the handler reads the same one.
    return (await c.req.json()) as unknown;
  } catch {
    return undefined;
  }
};

/** The answer's `data` when it is the /api success envelope; undefined for any refusal. */
const successData = async (c: Context<AppEnv>): Promise<{ data: unknown } | undefined> => {
  if (c.error !== undefined || c.res.status !== 200) return undefined;
  if (!(c.res.headers.get('content-type') ?? '').includes('application/json')) return undefined;
  try {
    const answer = (await c.res.clone().json()) as { success?: unknown; data?: unknown };
    return answer.success === true ? { data: answer.data } : undefined;
  } catch {
    return undefined;
  }
};

/** Who is signed in for this request, as an audit row names them. */
export const auditActorOf = (c: Context<AppEnv>): AuditActor | undefined => {
  const user = c.get('user') as AppEnv['Variables']['user'] | undefined;
  return user ? { id: user.id, username: user.username, role: user.role } : undefined;
};

/** The client's address as an audit row records it. */
export const auditIpOf = (c: Context<AppEnv>, services: Services): string =>
  clientIp(c, services.deps.config.trustProxy);

/**
 * Records each successful call of an audited route (`AUDITED_ROUTES`) as one audit row: who, from
 * where, what object, the action, its fields before and after (masked by the audit service). A
 * refused call (no permission, bad input, a business error) writes nothing. A row that cannot be
 * written is logged: the change it describes is already made.
 */
export const auditTrail =
  (services: Services): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const match = matchAuditedRoute(c.req.method, c.req.path);
    if (!match) return next();
    const { route } = match;
    const snapshots = services.audit.snapshots;
    const request: AuditRequest = { params: match.params, query: c.req.query(), body: await readBody(c) };
    const objectId = route.target ? await route.target(request, snapshots) : '';
    const before = route.before
      ? await route.before(snapshots)
      : objectId === ''
        ? null
        : await snapshots.read(route.object, objectId);
    await next();
    const actor = auditActorOf(c);
    const answer = await successData(c);
    if (!actor || !answer) return;
    const action = typeof route.action === 'function' ? route.action(request) : route.action;
    const removed = action === 'delete' || action === 'delete_disabled';
    const after = removed ? null : route.target ? await snapshots.read(route.object, objectId) : request.body;
    try {
      await services.audit.record({
        actor,
        ip: auditIpOf(c, services),
        action,
        object: route.object,
        objectId,
        before,
        after,
        ...(route.detail ? { detail: route.detail(request, answer.data) } : {}),
      });
    } catch (error) {
      services.deps.logger.error({ err: error, path: c.req.path }, 'audit row not written');
    }
  };
