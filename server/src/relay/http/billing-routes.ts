import { Hono } from 'hono';
import { cors } from 'hono/cors';
import type { AppEnv } from '../../http/app-env.js';
import { clientIp } from '../../http/client-ip.js';
import { authenticateKey } from '../request/key-auth.js';
import type { RelayRouteDeps } from '../request/relay-dispatch.js';

const UNLIMITED = 100_000_000;

/**
 * one-api's billing endpoints for OpenAI-style clients (§3.10): the key's (or its user's) quota as
 * dollars when currency display is on.
 */
export const billingRoutes = (deps: RelayRouteDeps) => {
  const routes = new Hono<AppEnv>({ strict: false });
  routes.use('*', cors({ origin: '*', allowMethods: ['GET', 'OPTIONS'], allowHeaders: ['*'] }));
  const amounts = async (authorization: string | undefined, ip: string) => {
    const auth = await authenticateKey(deps, authorization, ip);
    const options = deps.options.values;
    const toAmount = (quota: number) =>
      options.DisplayInCurrencyEnabled && options.QuotaPerUnit > 0 ? quota / options.QuotaPerUnit : quota;
    const token = await deps.db
      .selectFrom('tokens')
      .select(['remain_quota', 'used_quota', 'expired_time', 'unlimited_quota'])
      .where('id', '=', auth.token.id)
      .executeTakeFirstOrThrow();
    const user = await deps.db
      .selectFrom('users')
      .select(['quota', 'used_quota'])
      .where('id', '=', auth.user.id)
      .executeTakeFirstOrThrow();
    if (options.DisplayTokenStatEnabled) {
      const unlimited = token.unlimited_quota === true || token.unlimited_quota === 1;
      return {
        total: unlimited ? UNLIMITED : toAmount(token.remain_quota + token.used_quota),
        used: toAmount(token.used_quota),
        accessUntil: token.expired_time === -1 ? 0 : token.expired_time,
      };
    }
    return { total: toAmount(user.quota + user.used_quota), used: toAmount(user.used_quota), accessUntil: 0 };
  };

  routes.get('/subscription', async (c) => {
    const { total, accessUntil } = await amounts(
      c.req.header('authorization'),
      clientIp(c, deps.config.trustProxy),
    );
    return c.json({
      object: 'billing_subscription',
      has_payment_method: true,
      soft_limit_usd: total,
      hard_limit_usd: total,
      system_hard_limit_usd: total,
      access_until: accessUntil,
    });
  });
  routes.get('/usage', async (c) => {
    const { used } = await amounts(c.req.header('authorization'), clientIp(c, deps.config.trustProxy));
    return c.json({ object: 'list', total_usage: used * 100 });
  });
  return routes;
};
