import { isRootRole, ROLES, type Role } from '@sluice/contract/roles';
import type { User } from '@sluice/contract/schemas/user';
import { USER_STATUS } from '@sluice/contract/statuses';

/**
 * Role and status labels of spec §4 (translation keys under userAdmin.role / userAdmin.status), one
 * row per role and status of the contract but the guest role and the deleted status (shown as unknown).
 */
export const ROLE_LABELS: Readonly<
  Record<Exclude<Role, typeof ROLES.guest>, { key: 'common' | 'admin' | 'root'; color: string }>
> = {
  [ROLES.common]: { key: 'common', color: 'gray' },
  [ROLES.admin]: { key: 'admin', color: 'yellow' },
  [ROLES.root]: { key: 'root', color: 'orange' },
};

type UserStatus = (typeof USER_STATUS)[keyof typeof USER_STATUS];

export const STATUS_LABELS: Readonly<
  Record<Exclude<UserStatus, typeof USER_STATUS.deleted>, { key: 'activated' | 'banned'; color: string }>
> = {
  [USER_STATUS.enabled]: { key: 'activated', color: 'teal' },
  [USER_STATUS.disabled]: { key: 'banned', color: 'red' },
};

export type RowUser = Readonly<Pick<User, 'role' | 'status'>>;

export interface RowActions {
  /** The status button: disable for status 1, enable for any other status (spec §4). */
  readonly toggle: 'disable' | 'enable';
  readonly toggleAllowed: boolean;
  readonly promote: boolean;
  readonly demote: boolean;
  readonly delete: boolean;
  /** The admin form (/user/edit/:id): the server lets root read anyone, an admin lower roles only. */
  readonly edit: boolean;
}

/**
 * The actions a viewer may use on a row (spec §4, §6): a super admin row (role 100) is locked; an
 * admin acts only on lower roles and cannot promote (the server's rules, so no button is offered
 * that can only fail); promote needs a user below admin, demote a user above ordinary.
 */
export const rowActions = (user: RowUser, viewerRole: number): RowActions => {
  const locked = isRootRole(user.role) || (!isRootRole(viewerRole) && user.role >= viewerRole);
  return {
    toggle: user.status === USER_STATUS.enabled ? 'disable' : 'enable',
    toggleAllowed: !locked,
    promote: !locked && isRootRole(viewerRole) && user.role < ROLES.admin,
    demote: !locked && user.role > ROLES.common,
    delete: !locked,
    edit: isRootRole(viewerRole) || user.role < viewerRole,
  };
};
