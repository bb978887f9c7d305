import { describe, expect, it } from 'vitest';
import { matchRoutes } from 'react-router';
import { PROJECT_MENU_HIDDEN_CODES, type MenuNode } from '@ecrf/core';
import { menuEntries } from './layouts/menu-tree';
import { appRoutes, buildRoutes, pathOfRouteName, UNBUILT_ROUTE_NAMES } from './router';
import type { RouteMeta } from './router-guard';

const NAMES = [
  'login',
  'meil',
  'studyList',
  'project.home',
  'project.subject',
  'project.follow',
  'project.follow.record',
  'project.follow.plan',
  'project.calendar',
  'project.retrieval',
  'project.randomization',
  'project.randomlySelected',
  'project.doubtList',
  'project.safety',
  'project.weChat',
  'project.wechat.disease',
  'project.expert',
  'project.department',
  'project.consult',
  'project.wxuser',
  'project.medical',
  'study.operation',
  'study.list',
  'study.config',
  'study.crf',
  'study.crfStage',
  'study.crfStage.set',
  'study.role',
  'study.user',
  'sys.organization',
  'sys.role',
  'sys.menu',
  'sys.user',
  'crf.record',
  'crf.detail',
];

function metaAt(pathname: string): RouteMeta | undefined {
  const matches = matchRoutes(buildRoutes(), pathname);
  return matches?.at(-1)?.route.handle as RouteMeta | undefined;
}

describe('route table', () => {
  it('SHELL-01/CRF-01: declares every route of the spec by name, each with a title', () => {
    expect(appRoutes.map((r) => r.name)).toEqual(expect.arrayContaining(NAMES));
    for (const route of appRoutes) expect(route.title).not.toBe('');
    expect(new Set(appRoutes.map((r) => r.name)).size).toBe(appRoutes.length);
  });

  // The patients' reading pages of published knowledge articles are public too (docs/content.md).
  it('SHELL-02/SHELL-03: only login, meil, the study home and the published articles need no authorization', () => {
    expect(
      appRoutes
        .filter((r) => r.noAuth)
        .map((r) => r.name)
        .sort(),
    ).toEqual(['login', 'm.knowledge', 'm.knowledge.detail', 'meil', 'project.home']);
  });

  it('SHELL-04/KNOW-02: project pages, the introduction pages included, use the project layout', () => {
    for (const pathname of [
      '/project/3/subject',
      '/project/3/follow/record',
      '/project/3/wechat/disease',
      '/project/expert',
      '/project/medical',
    ]) {
      expect(metaAt(pathname)?.layout).toBe('project');
    }
  });

  it('SHELL-02/SYS-02/SYS-25: paths resolve to their named routes', () => {
    const cases: Array<[string, string]> = [
      ['/login', 'login'],
      ['/meil', 'meil'],
      ['/studyList', 'studyList'],
      ['/project/12/home', 'project.home'],
      ['/project/12/randomlySelected', 'project.randomlySelected'],
      ['/project/12/safety', 'project.safety'],
      ['/study/operation', 'study.operation'],
      ['/study/5/role', 'study.role'],
      ['/study/crfStage/set', 'study.crfStage.set'],
      ['/study/crfStage/set/8', 'study.crfStage.set'],
      ['/sys/organization', 'sys.organization'],
      ['/sys/menu', 'sys.menu'],
      ['/crf/100', 'crf.record'],
      ['/crf/detail/9', 'crf.detail'],
      ['/redirect/sys/user', 'redirect'],
      ['/no/such/page', 'notFound'],
    ];
    for (const [pathname, name] of cases) expect(metaAt(pathname)?.name).toBe(name);
  });

  it('STUDY-05: the ECRF settings route is /study/crfStage/set/{stageId}?studyId={studyId}, the stage id optional', () => {
    const at = (url: string) => matchRoutes(buildRoutes(), url)?.at(-1);
    const full = at('/study/crfStage/set/8?studyId=3');
    expect((full?.route.handle as RouteMeta | undefined)?.name).toBe('study.crfStage.set');
    expect(full?.params).toMatchObject({ id: '8' });
    // Without a stage the page offers a stage picker.
    expect(at('/study/crfStage/set')?.params.id).toBeUndefined();
    expect(metaAt('/study/crfStage/set')?.name).toBe('study.crfStage.set');
    expect(metaAt('/study/crfStage/set/8/9')?.name).toBe('notFound');
  });

  it('SHELL-18: pages not built yet are in no menu, though their menu nodes are seeded', () => {
    // The patient-side pages are built (docs/patient-portal.md).
    expect(UNBUILT_ROUTE_NAMES).not.toContain('project.weChat');
    expect(UNBUILT_ROUTE_NAMES).not.toContain('project.wxuser');
    expect(UNBUILT_ROUTE_NAMES).not.toContain('project.subject');
    expect(UNBUILT_ROUTE_NAMES).not.toContain('project.randomization');
    expect(UNBUILT_ROUTE_NAMES).not.toContain('project.randomlySelected');
    expect(UNBUILT_ROUTE_NAMES).not.toContain('project.calendar');
    const node = (menuId: number, code: string, parentId = 0, type: 'M' | 'C' = 'C'): MenuNode =>
      ({
        menuId,
        parentId,
        code,
        type,
        level: 1,
        orderNum: menuId,
        path: `/project/:id/${code}`,
        meta: { title: code },
      }) as MenuNode;
    const menus = [
      node(1, 'project.subject'),
      node(2, 'project.wechatGroup', 0, 'M'),
      node(3, 'project.wechat.disease', 2),
      node(4, 'project.weChat'),
    ];
    // An unbuilt page (here one named as such) and a group left empty by it are not offered.
    const entries = menuEntries(menus, 1, [
      ...PROJECT_MENU_HIDDEN_CODES,
      ...UNBUILT_ROUTE_NAMES,
      'project.wechat.disease',
      'project.weChat',
    ]);
    expect(entries.map((e) => e.code)).toEqual(['project.subject']);
  });

  it('SHELL-14: list pages are kept alive, others are not', () => {
    expect(metaAt('/sys/user')?.keepAlive).toBe(true);
    expect(metaAt('/studyList')?.keepAlive).toBe(true);
    expect(metaAt('/project/3/calendar')?.keepAlive).toBeFalsy();
  });

  it("SHELL-10: a user's home route name resolves to a path only when it needs no parameters", () => {
    expect(pathOfRouteName('sys.user')).toBe('/sys/user');
    expect(pathOfRouteName('project.subject')).toBeNull();
    expect(pathOfRouteName('nothing')).toBeNull();
    expect(pathOfRouteName(null)).toBeNull();
  });
});
