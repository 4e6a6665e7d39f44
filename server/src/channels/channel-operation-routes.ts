import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { ROLES } from '@sluice/contract/roles';
import { Hono } from 'hono';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { AppEnv } from '../http/app-env.js';
import { requireRole } from '../api/middleware/auth.js';
import { ok, readId, readQuery } from '../api/respond.js';
import type { Tables } from '../db/tables.js';
import { AppError, businessError } from '../lib/app-error.js';
import type { Services } from '../services/services.js';
import type { AdaptorSettings } from '../relay/providers/adaptor.js';
import { PROVIDERS } from '../relay/providers/registry.js';
import { updateBalance, supportsBalance } from './channel-balance.js';
import { testChannel } from './channel-test.js';
import type { ChannelTestRunner } from './channel-test-runner.js';
import { modelObject } from '../relay/http/model-list.js';
import type { Upstream } from '../relay/upstream/upstream.js';

export interface RelayApiDeps {
  readonly services: Services;
  readonly db: Kysely<Tables>;
  readonly upstream: Upstream;
  readonly runner: ChannelTestRunner;
  readonly testTimeoutMs: number;
  /** The pause between two channels of a balance-all run (POLLING_INTERVAL). */
  readonly pauseMs: number;
  readonly adaptorSettings: AdaptorSettings;
}

/** GET /api/models: channel type → its default model names (the console's model picker). */
export const modelCatalogueRoutes = (deps: RelayApiDeps) => {
  const routes = new Hono<AppEnv>({ strict: false });
  const catalogue = Object.fromEntries(
    Object.entries(PROVIDERS).map(([type, provider]) => [type, provider.models]),
  );
  routes.get('/', requireRole(deps.services, ROLES.common), (c) => ok(c, catalogue));
  return routes;
};

const requireChannel = async (db: Kysely<Tables>, id: number) => {
  const row = await db.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw businessError('channel does not exist');
  return row;
};

/**
 * Channel operations that call providers, mounted under /api/channel before the channel CRUD routes
 * (whose `/:id` would otherwise take these paths).
 */
export const channelOperationRoutes = (deps: RelayApiDeps) => {
  const routes = new Hono<AppEnv>({ strict: false });
  const admin = requireRole(deps.services, ROLES.admin);

  routes.get('/models', admin, (c) => {
    const data = Object.entries(PROVIDERS)
      .filter(([type]) => Number(type) !== CHANNEL_TYPE.azure)
      .flatMap(([, provider]) => provider.models.map((model) => modelObject(model)))
      .filter((model) => model !== undefined);
    return c.json({ object: 'list', data, success: true, message: '' });
  });

  routes.get('/test', admin, (c) => {
    const { scope } = readQuery(c, z.object({ scope: z.enum(['all', 'disabled']).catch('all') }));
    if (!deps.runner.start(scope)) throw businessError('a channel test is already running');
    return ok(c);
  });
  routes.get('/test/status', admin, (c) => ok(c, deps.runner.progress()));
  routes.get('/test/:id', admin, async (c) => {
    const row = await requireChannel(deps.db, readId(c));
    const model = (c.req.query('model') ?? '').trim().slice(0, 191);
    const result = await testChannel(
      {
        db: deps.db,
        upstream: deps.upstream,
        timeoutMs: deps.testTimeoutMs,
        adaptorSettings: deps.adaptorSettings,
      },
      row,
      model,
    );
    return c.json({
      success: result.success,
      message: result.message,
      time: result.time,
      model: result.model,
    });
  });

  routes.get('/update_balance', admin, async (c) => {
    const rows = await deps.db.selectFrom('channels').selectAll().where('status', '=', 1).execute();
    let updated = 0;
    for (const [index, row] of rows.filter((candidate) => supportsBalance(candidate.type)).entries()) {
      if (index > 0 && deps.pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, deps.pauseMs));
      try {
        await updateBalance(deps, row);
        updated += 1;
      } catch {
        // one channel's failure does not stop the others
      }
    }
    return ok(c, updated, `updated the balance of ${updated} channels`);
  });
  routes.get('/update_balance/:id', admin, async (c) => {
    const row = await requireChannel(deps.db, readId(c));
    try {
      return c.json({ success: true, message: '', balance: await updateBalance(deps, row) });
    } catch (error) {
      if (error instanceof AppError) return c.json({ success: false, message: error.message, balance: 0 });
      throw error;
    }
  });
  return routes;
};
