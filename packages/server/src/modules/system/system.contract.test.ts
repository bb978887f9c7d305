import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  deptSchema,
  menuRowSchema,
  roleCreatedSchema,
  roleMenuTreeSchema,
  roleSchema,
  siteRowSchema,
  sysConfigFieldSchema,
  sysUserSchema,
  treeOptionSchema,
  userCreatedSchema,
} from '@ecrf/core';
import { contractData, pageOf } from '../../test/contract.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/** The shared response schemas of core's system contract match what the system routes answer. */

let t: TestApp;
let admin: string;
beforeAll(async () => {
  t = await createTestApp();
  admin = (await t.login()).token;
});
afterAll(() => t.close());

const get = (url: string) => t.call(admin, 'GET', url);

// The list answers every field of a row (no children: the page builds the tree); a menu row carries an empty one.
const deptRow = deptSchema.omit({ children: true }).strict();
const menuRow = menuRowSchema.required().strict();

describe('system contract', () => {
  it('departments', async () => {
    const created = contractData(
      deptRow,
      await t.call(admin, 'POST', '/api/system/dept', { parentId: 1, deptName: '契约中心', leader: '王主任' }),
    );
    contractData(
      deptRow,
      await t.call(admin, 'PUT', '/api/system/dept', { deptId: created.deptId, parentId: 1, deptName: '契约分中心' }),
    );
    contractData(deptRow, await get(`/api/system/dept/${created.deptId}`));
    const list = contractData(z.array(deptRow), await get('/api/system/dept/list'));
    expect(list.some((d) => d.deptId === created.deptId)).toBe(true);
    contractData(z.array(siteRowSchema), await get('/api/system/dept/list'));
  });

  it('roles and the menu tree they are granted from', async () => {
    const tree = contractData(z.array(treeOptionSchema.required()), await get('/api/system/menu/treeselect'));
    const created = contractData(
      roleCreatedSchema,
      await t.call(admin, 'POST', '/api/system/role', {
        roleName: '契约角色',
        roleKey: 'contract',
        menuIds: [tree[0]!.id],
      }),
    );
    contractData(roleSchema.required().strict(), await get(`/api/system/role/${created.roleId}`));
    contractData(pageOf(roleSchema.omit({ menuIds: true }).strict()), await get('/api/system/role/list?pageNum=1'));
    const granted = contractData(
      roleMenuTreeSchema,
      await get(`/api/system/menu/roleMenuTreeselect/${created.roleId}`),
    );
    expect(granted.checkedKeys).toEqual([tree[0]!.id]);
  });

  it('menus', async () => {
    const list = contractData(z.array(menuRow), await get('/api/system/menu/list'));
    contractData(menuRow, await get(`/api/system/menu/${list[0]!.menuId}`));
    const created = contractData(
      menuRow,
      await t.call(admin, 'POST', '/api/system/menu', { type: 'C', code: 'contract.page', title: '契约页面' }),
    );
    contractData(
      menuRow,
      await t.call(admin, 'PUT', '/api/system/menu', {
        menuId: created.menuId,
        type: 'C',
        code: 'contract.page',
        title: '契约页',
      }),
    );
  });

  it('users and the system settings', async () => {
    const created = contractData(
      userCreatedSchema,
      await t.call(admin, 'POST', '/api/system/user', {
        userName: '13700000099',
        password: 'Passw0rd',
        name: '契约用户',
        deptId: 1,
        roleIds: [1],
      }),
    );
    // A user's page and the list answer every field (the signed-in profile has fewer: auth.contract.test.ts).
    const user = sysUserSchema.required().strict();
    contractData(user, await get(`/api/system/user?userId=${created.userId}`));
    const users = contractData(pageOf(user), await get('/api/system/users?pageNum=1&pageSize=10'));
    expect(users.list.some((u) => u.userId === created.userId)).toBe(true);
    contractData(z.array(sysConfigFieldSchema), await get('/api/v1/base/sysconfig/getbasesysconfiglist'));
  });
});
