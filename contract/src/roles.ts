/** User roles as stored in `users.role` (one-api values). */
export const ROLES = {
  guest: 0,
  common: 1,
  admin: 10,
  root: 100,
} as const;

export type Role = (typeof ROLES)[keyof typeof ROLES];

export const isAdminRole = (role: number): boolean => role >= ROLES.admin;
export const isRootRole = (role: number): boolean => role >= ROLES.root;
