import { describe, expect, it } from 'vitest';
import { PROJECT_MENU_HIDDEN_CODES, type MenuNode } from '@ecrf/core';
import { menuEntries, menuTrail, resolveMenuPath } from './menu-tree';

let nextId = 1;
function node(partial: Partial<MenuNode> & Pick<MenuNode, 'type' | 'code'>, children: MenuNode[] = []): MenuNode {
  const menuId = partial.menuId ?? nextId++;
  return {
    menuId,
    parentId: 0,
    perms: null,
    path: null,
    level: 0,
    orderNum: 0,
    status: 0,
    meta: { title: partial.code, icon: null, hidden: false },
    ...partial,
    children: children.map((child) => ({ ...child, parentId: menuId })),
  };
}

const routers: MenuNode[] = [
  node({ type: 'C', code: 'studyList', path: '/studyList', orderNum: 1 }),
  node({ type: 'M', code: 'sys', orderNum: 3, meta: { title: '系统管理', icon: 'system', hidden: false } }, [
    node({
      type: 'C',
      code: 'sys.user',
      path: '/sys/user',
      orderNum: 2,
      meta: { title: '用户管理', icon: 'user', hidden: false },
    }),
    node({
      type: 'C',
      code: 'sys.organization',
      path: '/sys/organization',
      orderNum: 1,
      meta: { title: '机构管理', icon: null, hidden: false },
    }),
    node({ type: 'F', code: 'sys:user:add' }),
  ]),
  node({ type: 'M', code: 'study', orderNum: 2 }, [
    node({ type: 'C', code: 'study.operation', path: '/study/operation' }),
    node({
      type: 'C',
      code: 'study.config',
      path: '/study/config',
      meta: { title: '项目配置', icon: null, hidden: true },
    }),
  ]),
  node({ type: 'C', code: 'project.subject', path: '/project/:id/subject', level: 1, orderNum: 1 }),
  node({ type: 'C', code: 'project.biology', path: '/project/:id/biology', level: 1, orderNum: 2 }),
  node({ type: 'C', code: 'project.crfUpload', path: '/project/:id/crfUpload', level: 1, orderNum: 3 }),
  node({ type: 'C', code: 'project.follow.record', path: '/project/:id/follow/record', level: 1, orderNum: 4 }),
];

describe('side menu tree', () => {
  it('SHELL-15/SHELL-17: level 0 builds the main menu of groups and leaves, in order', () => {
    const entries = menuEntries(routers, 0);
    expect(entries.map((e) => e.code)).toEqual(['studyList', 'study', 'sys']);
    const sys = entries[2];
    expect(sys.children?.map((e) => e.title)).toEqual(['机构管理', '用户管理']);
    expect(entries[0].children).toBeUndefined();
  });

  it('SHELL-15: buttons and hidden entries are not shown', () => {
    const codes = JSON.stringify(menuEntries(routers, 0));
    expect(codes).not.toContain('sys:user:add');
    expect(codes).not.toContain('study.config');
  });

  it('SHELL-17/SHELL-18: level 1 builds the project menu without project.biology and project.crfUpload', () => {
    const entries = menuEntries(routers, 1, PROJECT_MENU_HIDDEN_CODES);
    expect(entries.map((e) => e.code)).toEqual(['project.subject', 'project.follow.record']);
  });

  it('SHELL-17: a flat answer (parentId links only) builds the same tree', () => {
    const flat: MenuNode[] = [];
    const flatten = (list: MenuNode[]) => list.forEach((n) => (flat.push({ ...n, children: [] }), flatten(n.children)));
    flatten(routers);
    expect(menuEntries(flat, 0)).toEqual(menuEntries(routers, 0));
  });

  it('SHELL-16: project leaves open the current study', () => {
    expect(resolveMenuPath('/project/:id/subject', '12')).toBe('/project/12/subject');
    expect(resolveMenuPath('sys/user', null)).toBe('/sys/user');
  });

  it('SHELL-15: the trail to the current page opens its group and selects its leaf', () => {
    const main = menuEntries(routers, 0);
    const trail = menuTrail(main, '/sys/user', null);
    expect(trail).toHaveLength(2);
    expect(trail[0]).toBe(main[2].key);
    const project = menuEntries(routers, 1, PROJECT_MENU_HIDDEN_CODES);
    expect(menuTrail(project, '/project/12/follow/record', '12')).toEqual([project[1].key]);
    expect(menuTrail(main, '/nowhere', null)).toEqual([]);
  });
});
