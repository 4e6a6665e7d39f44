import { ROLES } from '@sluice/contract/roles';
import { Hono } from 'hono';
import { z } from 'zod';
import { enableChannelKeyRequestSchema, type ChannelKeyState } from '@sluice/contract/channel-keys';
import type { ChannelBreakerState } from '@sluice/contract/schemas/channel';
import type { AppEnv } from '../http/app-env.js';
import { AppError, businessError } from '../lib/app-error.js';
import type { Services } from '../services/services.js';
import { requireRole } from './middleware/auth.js';
import { ok, readJson, readId, readQuery } from './respond.js';
import type { LiveDashboardPort } from './live-dashboard-port.js';

export interface ChannelTestProgress {
  readonly running: boolean;
  readonly scope: string;
  readonly done: number;
  readonly total: number;
  readonly failed: number;
}

/**
 * The port these routes need: the channel operations that call providers, built in `channels/` and
 * passed in by boot.ts, so that api/ never imports the relay or the channel jobs.
 */
export interface ChannelOperations {
  /** Channel type id → its default model names (the console's model picker). */
  readonly catalogue: Readonly<Record<string, readonly string[]>>;
  /** The built-in model objects of every type but Azure. */
  readonly builtInModels: readonly unknown[];
  /** Who publishes a model (GET /v1/models' owned_by), else the owner of the channel type serving it. */
  readonly modelOwner: (model: string, channelType: number) => string;
  /** Starts a background test of all or of the disabled channels; false while one runs. */
  startTests(scope: 'all' | 'disabled'): boolean;
  testProgress(): ChannelTestProgress;
  /** Tests one channel; undefined when it does not exist. */
  test(
    id: number,
    model: string,
  ): Promise<
    | {
        success: boolean;
        message: string;
        time: number;
        model: string;
        /** Each key's result when the channel has several (masked). */
        keys?: readonly KeyTestOutcome[];
      }
    | undefined
  >;
  /** A channel's keys, masked, with their states; undefined when it does not exist. */
  keys(id: number): Promise<ChannelKeyState[] | undefined>;
  /** Enables one of a channel's keys again (by its id); false when it was not disabled. */
  enableKey(id: number, keyId: string): Promise<boolean>;
  /** Reads the balance of every enabled channel that has a reader; answers how many were read. */
  updateAllBalances(): Promise<number>;
  /** Reads one channel's balance (an AppError when the provider refuses); undefined when it does not exist. */
  updateBalance(id: number): Promise<number | undefined>;
  /** A channel's breaker on this instance (the relay's; cooledUntil in Unix seconds, 0 when closed). */
  readonly breaker?: (id: number) => { readonly state: ChannelBreakerState; readonly cooledUntil: number };
  /** The relay's live counters (the live dashboards, live-dashboard-routes.ts). */
  readonly live?: LiveDashboardPort;
}

/** One key's channel test: its place, id and masked form, and how the test went. */
export interface KeyTestOutcome {
  readonly index: number;
  readonly id: string;
  readonly masked: string;
  readonly success: boolean;
  readonly message: string;
  readonly time: number;
}

const NO_CHANNEL = 'channel does not exist';

/** GET /api/models: channel type → its default model names (the console's model picker). */
export const modelCatalogueRoutes = (services: Services, operations: ChannelOperations) => {
  const routes = new Hono<AppEnv>({ strict: false });
  routes.get('/', requireRole(services, ROLES.common), (c) => ok(c, operations.catalogue));
  return routes;
};

/**
 * Channel operations that call providers, mounted under /api/channel before the channel CRUD routes
 * (whose `/:id` would otherwise take these paths).
 */
export const channelOperationRoutes = (services: Services, operations: ChannelOperations) => {
  const routes = new Hono<AppEnv>({ strict: false });
  const admin = requireRole(services, ROLES.admin);

  routes.get('/models', admin, (c) =>
    c.json({ object: 'list', data: operations.builtInModels, success: true, message: '' }),
  );

  routes.get('/test', admin, (c) => {
    const { scope } = readQuery(c, z.object({ scope: z.enum(['all', 'disabled']).catch('all') }));
    if (!operations.startTests(scope)) throw businessError('a channel test is already running');
    return ok(c);
  });
  routes.get('/test/status', admin, (c) => ok(c, operations.testProgress()));
  routes.get('/test/:id', admin, async (c) => {
    const id = readId(c);
    const model = (c.req.query('model') ?? '').trim().slice(0, 191);
    const result = await operations.test(id, model);
    if (!result) throw businessError(NO_CHANNEL);
    return c.json({
      success: result.success,
      message: result.message,
      time: result.time,
      model: result.model,
      ...(result.keys ? { keys: result.keys } : {}),
    });
  });

  // A channel's keys (masked, never the key itself) and their states; one key enabled again.
  routes.get('/:id/keys', admin, async (c) => {
    const keys = await operations.keys(readId(c));
    if (!keys) throw businessError(NO_CHANNEL);
    return ok(c, keys);
  });
  routes.post('/:id/keys/enable', admin, async (c) => {
    const id = readId(c);
    const { key_id } = await readJson(c, enableChannelKeyRequestSchema);
    if (!(await operations.keys(id))) throw businessError(NO_CHANNEL);
    if (!(await operations.enableKey(id, key_id))) throw businessError('the key is not disabled');
    return ok(c);
  });

  routes.get('/update_balance', admin, async (c) => {
    const updated = await operations.updateAllBalances();
    return ok(c, updated, `updated the balance of ${updated} channels`);
  });
  routes.get('/update_balance/:id', admin, async (c) => {
    const id = readId(c);
    let balance: number | undefined;
    try {
      balance = await operations.updateBalance(id);
    } catch (error) {
      if (error instanceof AppError) return c.json({ success: false, message: error.message, balance: 0 });
      throw error;
    }
    if (balance === undefined) throw businessError(NO_CHANNEL);
    return c.json({ success: true, message: '', balance });
  });
  return routes;
};
