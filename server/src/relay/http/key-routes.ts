import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { toBool } from '../../db/database.js';
import type { AppEnv } from '../../http/app-env.js';
import { clientIp } from '../../http/client-ip.js';
import { limitValuesOf } from '../../services/limit-record.js';
import { readBudgetUsage } from '../../services/budget-usage.js';
import { authenticateKey } from '../request/key-auth.js';
import type { RelayRouteDeps } from '../request/relay-dispatch.js';

/**
 * `GET /v1/dashboard/key` (Sluice's own, beside one-api's `/v1/dashboard/billing/*`): what a key can
 * read of itself with itself: its remaining quota and its user's, its rate limits and budgets and its
 * user's, and what each budget's window holds now (requests in flight at their estimate, as the
 * relay's instances wrote it at most a second ago). Amounts are in quota units; `quota_per_unit`
 * turns them into dollars.
 */
export const keyRoutes = (deps: RelayRouteDeps) => {
  const routes = new Hono<AppEnv>({ strict: false });
  routes.use('*', cors({ origin: '*', allowMethods: ['GET', 'OPTIONS'], allowHeaders: ['*'] }));
  routes.get('/', async (c) => {
    const auth = await authenticateKey(
      deps,
      c.req.header('authorization'),
      clientIp(c, deps.config.trustProxy),
    );
    const token = await deps.db
      .selectFrom('tokens')
      .selectAll()
      .where('id', '=', auth.token.id)
      .executeTakeFirstOrThrow();
    const user = await deps.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', auth.user.id)
      .executeTakeFirstOrThrow();
    const options = deps.options.values;
    const [keyUsage, userUsage] = await Promise.all([
      readBudgetUsage(deps.db, 't', [token], options),
      readBudgetUsage(deps.db, 'u', [user], options),
    ]);
    const unlimited = toBool(token.unlimited_quota);
    const limits = (row: typeof token | typeof user) => {
      const values = limitValuesOf(row);
      return { rpm: values.rpm_limit, tpm: values.tpm_limit, concurrency: values.concurrency_limit };
    };
    return c.json({
      object: 'key',
      name: token.name ?? '',
      expires_at: token.expired_time === -1 ? null : Number(token.expired_time),
      unlimited_quota: unlimited,
      remaining_quota: unlimited ? null : Number(token.remain_quota),
      used_quota: Number(token.used_quota),
      quota_per_unit: options.QuotaPerUnit,
      limits: limits(token),
      budgets: keyUsage.get(token.id) ?? [],
      user: {
        remaining_quota: Number(user.quota),
        used_quota: Number(user.used_quota),
        limits: limits(user),
        budgets: userUsage.get(user.id) ?? [],
      },
    });
  });
  return routes;
};
