import { describe, expect, it } from 'vitest';
import type { SystemPermission } from '@ecrf/core';
import { canAccess, canEnterRoute, createAccess } from './access';

describe('access', () => {
  it('VIS-11: a guarded code is granted by the stored button-permission list', () => {
    expect(canAccess({ buttonPermissions: ['sys:user:add'], permissions: [] }, 'sys:user:add')).toBe(true);
  });

  it("VIS-11: a guarded code is granted by the user's permission list", () => {
    expect(canAccess({ buttonPermissions: [], permissions: ['sys:user:edit'] }, 'sys:user:edit')).toBe(true);
  });

  it('VIS-11/VIS-12: a code in neither list is denied', () => {
    const source = { buttonPermissions: ['sys:user:add'], permissions: ['sys:org:user'] };
    expect(canAccess(source, 'sys:user:remove')).toBe(false);
    expect(createAccess(source).can('sys:user:resetPwd')).toBe(false);
  });

  it('VIS-10: the administrator wildcard *:*:* grants every button', () => {
    const admin = createAccess({ buttonPermissions: ['*:*:*'], permissions: [] });
    const codes: SystemPermission[] = ['sys:dept:add', 'sys:menu:remove', 'study.doubt.open'];
    for (const code of codes) expect(admin.can(code)).toBe(true);
  });

  it('VIS-10: table of codes against lists', () => {
    const cases: Array<[string[], string[], SystemPermission, boolean]> = [
      [[], [], 'sys:role:add', false],
      [['sys:role:add'], [], 'sys:role:add', true],
      [[], ['sys:role:add'], 'sys:role:add', true],
      [['sys:role:ad'], [], 'sys:role:add', false],
      [['SYS:ROLE:ADD'], [], 'sys:role:add', false],
    ];
    for (const [buttonPermissions, permissions, code, expected] of cases) {
      expect(canAccess({ buttonPermissions, permissions }, code)).toBe(expected);
    }
  });

  it('SHELL-11/SYS-02: the route-level permission check always passes', () => {
    expect(canEnterRoute()).toBe(true);
  });
});
