// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { newUserError } from './user-add-page.js';
import { rowActions } from './user-row-model.js';

const ROOT = 100;
const ADMIN = 10;
const COMMON = 1;

describe('user row actions (spec §4, §6)', () => {
  it('locks a super admin row: no promote, demote, delete or status change', () => {
    expect(rowActions({ role: ROOT, status: 1 }, ROOT)).toEqual({
      toggle: 'disable',
      toggleAllowed: false,
      promote: false,
      demote: false,
      delete: false,
      edit: true,
    });
  });

  it('disables status 1 and enables any other status', () => {
    expect(rowActions({ role: COMMON, status: 1 }, ROOT).toggle).toBe('disable');
    expect(rowActions({ role: COMMON, status: 2 }, ROOT).toggle).toBe('enable');
    expect(rowActions({ role: COMMON, status: 7 }, ROOT).toggle).toBe('enable');
  });

  it('lets root promote ordinary users and demote admins', () => {
    expect(rowActions({ role: COMMON, status: 1 }, ROOT)).toMatchObject({
      promote: true,
      demote: false,
      delete: true,
      toggleAllowed: true,
    });
    expect(rowActions({ role: ADMIN, status: 1 }, ROOT)).toMatchObject({
      promote: false,
      demote: true,
      delete: true,
      toggleAllowed: true,
    });
  });

  it('lets an admin act on ordinary users only, without promoting', () => {
    expect(rowActions({ role: COMMON, status: 1 }, ADMIN)).toMatchObject({
      promote: false,
      delete: true,
      toggleAllowed: true,
    });
    expect(rowActions({ role: ADMIN, status: 1 }, ADMIN)).toMatchObject({
      promote: false,
      demote: false,
      delete: false,
      toggleAllowed: false,
      edit: false,
    });
    expect(rowActions({ role: COMMON, status: 1 }, ADMIN).edit).toBe(true);
  });
});

describe('creating a user (spec §5)', () => {
  it('needs a username and a password', () => {
    expect(newUserError({ username: ' ', display_name: '', password: 'password1' })).toBe(
      'userAdmin.required',
    );
    expect(newUserError({ username: 'bob', display_name: '', password: '' })).toBe('userAdmin.required');
    expect(newUserError({ username: 'bob', display_name: '', password: 'x' })).toBeUndefined();
  });
});
