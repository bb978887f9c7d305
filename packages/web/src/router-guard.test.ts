import { describe, expect, it } from 'vitest';
import { decideNavigation, pageTitle, studyIdOf } from './router-guard';

const page = { noAuth: false };
const open = { noAuth: true };

describe('navigation guard', () => {
  it('SHELL-09: with a token, /login redirects to the root', () => {
    expect(decideNavigation({ hasToken: true, pathname: '/login', meta: open })).toEqual({
      action: 'redirect',
      to: '/',
    });
  });

  it("SHELL-10: with a token, the root redirects to /studyList, or to the user's own home", () => {
    expect(decideNavigation({ hasToken: true, pathname: '/', meta: undefined })).toEqual({
      action: 'redirect',
      to: '/studyList',
    });
    expect(decideNavigation({ hasToken: true, pathname: '/', meta: undefined, homePath: '/sys/user' })).toEqual({
      action: 'redirect',
      to: '/sys/user',
    });
  });

  it('SHELL-11: with a token every other route is allowed', () => {
    for (const pathname of ['/studyList', '/sys/user', '/project/3/subject', '/crf/9', '/meil', '/no/such/page']) {
      expect(decideNavigation({ hasToken: true, pathname, meta: page })).toEqual({ action: 'allow' });
    }
  });

  it('SHELL-12: without a token, routes needing no authorization are allowed', () => {
    for (const pathname of ['/login', '/meil', '/project/3/home']) {
      expect(decideNavigation({ hasToken: false, pathname, meta: open })).toEqual({ action: 'allow' });
    }
  });

  it('SHELL-12: without a token, every other route redirects to /login', () => {
    for (const pathname of ['/', '/studyList', '/sys/user', '/project/3/subject', '/no/such/page']) {
      expect(
        decideNavigation({ hasToken: false, pathname, meta: pathname === '/no/such/page' ? undefined : page }),
      ).toEqual({
        action: 'redirect',
        to: '/login',
      });
    }
  });

  it('SHELL-09: a trailing slash does not get around the rules', () => {
    expect(decideNavigation({ hasToken: true, pathname: '/login/', meta: open })).toEqual({
      action: 'redirect',
      to: '/',
    });
  });

  it('SHELL-08: the page title is the route title, or the default product title', () => {
    expect(pageTitle({ title: '用户管理' }, '临床科研电子数据采集平台')).toBe('用户管理');
    expect(pageTitle({ title: '' }, '临床科研电子数据采集平台')).toBe('临床科研电子数据采集平台');
    expect(pageTitle(undefined, '某医院科研平台')).toBe('某医院科研平台');
  });

  it('SHELL-13: routes whose name contains "project" take the study id from :id', () => {
    expect(studyIdOf({ name: 'project.subject' }, { id: '42' })).toBe('42');
    expect(studyIdOf({ name: 'project.follow.record' }, { id: '7' })).toBe('7');
    expect(studyIdOf({ name: 'project.expert' }, {})).toBeUndefined();
    expect(studyIdOf({ name: 'study.role' }, { id: '42' })).toBeUndefined();
  });
});
