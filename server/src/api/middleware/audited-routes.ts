import type { AuditAction, AuditObject } from '@sluice/contract/schemas/audit';
import type { AuditSnapshots } from '../../services/audit-snapshot.js';

/** What the audit trail reads of a request before its handler runs. */
export interface AuditRequest {
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  /** The JSON body (undefined when there is none or it does not parse: the handler refuses it). */
  readonly body: unknown;
}

/** One administrative route the audit trail records: a row per successful call. */
export interface AuditedRoute {
  readonly method: 'POST' | 'PUT' | 'DELETE';
  /** Under /api; `:name` is a whole number. */
  readonly path: string;
  readonly object: AuditObject;
  readonly action: AuditAction | ((request: AuditRequest) => AuditAction);
  /** The changed object's id, known before the change; none for a route that makes a new one. */
  readonly target?: (request: AuditRequest, snapshots: AuditSnapshots) => Promise<string> | string;
  /** The fields before, when they are not the target's (the channels "delete disabled" removes). */
  readonly before?: (snapshots: AuditSnapshots) => Promise<unknown>;
  /** The row's detail: from the request and the answer's data (how many rows a cleanup deleted). */
  readonly detail?: (request: AuditRequest, data: unknown) => string;
}

const fieldOf = (body: unknown, name: string): string => {
  if (typeof body !== 'object' || body === null) return '';
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
};

const bodyId = (request: AuditRequest) => fieldOf(request.body, 'id');
const paramId = (request: AuditRequest) => request.params['id'] ?? '';
const statusOnly = (request: AuditRequest): AuditAction =>
  request.query['status_only'] ? 'update_status' : 'update';

/** A batch of options: their keys, joined by commas. */
const optionKeys = (request: AuditRequest): string =>
  Array.isArray(request.body) ? request.body.map((item) => fieldOf(item, 'key')).join(',') : '';

/**
 * Every change an administrator makes through /api, as a table: channels, users (and their
 * top-ups), redemption codes, options (the ratios, the groups of GroupRatio and the sign-in
 * settings among them), the log cleanup and the reset of a user's second factors. A user's own
 * account, tokens and top-ups are theirs, not administration; sign-ins and a user's own second
 * factor are recorded by their routes.
 */
export const AUDITED_ROUTES: readonly AuditedRoute[] = [
  { method: 'POST', path: '/channel', object: 'channel', action: 'create' },
  { method: 'PUT', path: '/channel', object: 'channel', action: 'update', target: bodyId },
  {
    method: 'DELETE',
    path: '/channel/disabled',
    object: 'channel',
    action: 'delete_disabled',
    before: (snapshots) => snapshots.disabledChannels(),
    detail: (_request, data) => `deleted ${String(data)} channels`,
  },
  { method: 'DELETE', path: '/channel/:id', object: 'channel', action: 'delete', target: paramId },
  { method: 'POST', path: '/user', object: 'user', action: 'create' },
  { method: 'PUT', path: '/user', object: 'user', action: 'update', target: bodyId },
  {
    method: 'POST',
    path: '/user/manage',
    object: 'user',
    action: 'manage',
    target: (request, snapshots) => snapshots.userIdOf(fieldOf(request.body, 'username')),
    detail: (request) => fieldOf(request.body, 'action'),
  },
  { method: 'DELETE', path: '/user/:id', object: 'user', action: 'delete', target: paramId },
  { method: 'DELETE', path: '/user/:id/2fa', object: 'two_factor', action: 'reset', target: paramId },
  {
    method: 'POST',
    path: '/topup',
    object: 'user',
    action: 'top_up',
    target: (request) => fieldOf(request.body, 'user_id'),
    detail: (request) => `quota ${fieldOf(request.body, 'quota')} ${fieldOf(request.body, 'remark')}`.trim(),
  },
  { method: 'POST', path: '/redemption', object: 'redemption', action: 'create' },
  { method: 'PUT', path: '/redemption', object: 'redemption', action: statusOnly, target: bodyId },
  { method: 'DELETE', path: '/redemption/:id', object: 'redemption', action: 'delete', target: paramId },
  {
    method: 'PUT',
    path: '/option',
    object: 'option',
    action: 'update',
    target: (request) => fieldOf(request.body, 'key'),
  },
  { method: 'PUT', path: '/option/batch', object: 'option', action: 'update', target: optionKeys },
  {
    method: 'DELETE',
    path: '/log',
    object: 'log',
    action: 'delete',
    target: (request) => request.query['target_timestamp'] ?? '',
    detail: (_request, data) => `deleted ${String(data)} rows`,
  },
];

const segmentsOf = (path: string): string[] => path.split('/').filter((segment) => segment !== '');

/** The audited route a request is, with its path parameters; undefined for any other request. */
export const matchAuditedRoute = (
  method: string,
  path: string,
): { route: AuditedRoute; params: Record<string, string> } | undefined => {
  const segments = segmentsOf(path.replace(/^\/api(?=\/|$)/, ''));
  for (const route of AUDITED_ROUTES) {
    if (route.method !== method) continue;
    const pattern = segmentsOf(route.path);
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const matches = pattern.every((part, index) => {
      const segment = segments[index] ?? '';
      if (!part.startsWith(':')) return part === segment;
      params[part.slice(1)] = segment;
      return /^\d{1,15}$/.test(segment);
    });
    if (matches) return { route, params };
  }
  return undefined;
};
