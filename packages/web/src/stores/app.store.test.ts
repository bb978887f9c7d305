import { beforeEach, describe, expect, it } from 'vitest';
import {
  addView,
  closeAllViews,
  closeOtherViews,
  closeView,
  MENU_WIDTH_COLLAPSED,
  MENU_WIDTH_EXPANDED,
  STUDY_LIST_VIEW,
  useAppStore,
  type VisitedView,
} from './app.store';

const view = (pathname: string, search = ''): VisitedView => ({
  path: `${pathname}${search}`,
  pathname,
  name: pathname.slice(1).replace(/\//g, '.'),
  title: pathname,
});

const users = view('/sys/user');
const roles = view('/sys/role');
const menus = view('/sys/menu');

describe('tab strip rules', () => {
  it('SHELL-26: one tab per visited route; the study list is pinned', () => {
    let views = addView([STUDY_LIST_VIEW], users);
    views = addView(views, roles);
    views = addView(views, users);
    expect(views.map((v) => v.pathname)).toEqual(['/studyList', '/sys/user', '/sys/role']);
    expect(views[0].affix).toBe(true);
  });

  it('SHELL-26: revisiting a route with another query updates its tab instead of adding one', () => {
    const views = addView([STUDY_LIST_VIEW, users], view('/sys/user', '?status=0'));
    expect(views).toHaveLength(2);
    expect(views[1].path).toBe('/sys/user?status=0');
  });

  it('SHELL-29: closing the active tab goes to the last remaining tab', () => {
    const result = closeView([STUDY_LIST_VIEW, users, roles, menus], '/sys/menu', '/sys/menu');
    expect(result.views.map((v) => v.pathname)).toEqual(['/studyList', '/sys/user', '/sys/role']);
    expect(result.next).toBe('/sys/role');
  });

  it('SHELL-29: closing the active tab goes to / when no tab is left', () => {
    expect(closeView([users], '/sys/user', '/sys/user')).toEqual({ views: [], next: '/' });
  });

  it('SHELL-29: closing another tab stays where the user is', () => {
    const result = closeView([STUDY_LIST_VIEW, users, roles], '/sys/user', '/sys/role');
    expect(result.next).toBeNull();
    expect(result.views.map((v) => v.pathname)).toEqual(['/studyList', '/sys/role']);
  });

  it('SHELL-26: a pinned tab cannot be closed', () => {
    const result = closeView([STUDY_LIST_VIEW, users], '/studyList', '/studyList');
    expect(result.views).toHaveLength(2);
    expect(result.next).toBeNull();
  });

  it('SHELL-27: close others keeps the pinned tabs and the chosen one, and opens it', () => {
    const result = closeOtherViews([STUDY_LIST_VIEW, users, roles, menus], '/sys/role', '/sys/menu');
    expect(result.views.map((v) => v.pathname)).toEqual(['/studyList', '/sys/role']);
    expect(result.next).toBe('/sys/role');
    expect(closeOtherViews([STUDY_LIST_VIEW, users, roles], '/sys/user', '/sys/user').next).toBeNull();
  });

  it('SHELL-27/SHELL-29: close all keeps the pinned tabs and goes to the last of them', () => {
    const result = closeAllViews([STUDY_LIST_VIEW, users, roles], '/sys/role');
    expect(result.views).toEqual([STUDY_LIST_VIEW]);
    expect(result.next).toBe('/studyList');
    expect(closeAllViews([users, roles], '/sys/role')).toEqual({ views: [], next: '/' });
    expect(closeAllViews([STUDY_LIST_VIEW, users], '/studyList').next).toBeNull();
  });
});

describe('app store', () => {
  beforeEach(() => {
    useAppStore.setState({
      collapse: false,
      collapseWidth: MENU_WIDTH_EXPANDED,
      visitedViews: [STUDY_LIST_VIEW],
      dataSyncScope: [],
    });
  });

  it('SHELL-30: holds collapse, collapseWidth, visitedViews and dataSyncScope', () => {
    const state = useAppStore.getState();
    expect(state).toMatchObject({
      collapse: false,
      collapseWidth: 282,
      visitedViews: [STUDY_LIST_VIEW],
      dataSyncScope: [],
    });
    state.setDataSyncScope(['subject', 'crf']);
    expect(useAppStore.getState().dataSyncScope).toEqual(['subject', 'crf']);
  });

  it('SHELL-19: the menu collapses to 50 and expands to 282', () => {
    useAppStore.getState().toggleCollapse();
    expect(useAppStore.getState()).toMatchObject({ collapse: true, collapseWidth: MENU_WIDTH_COLLAPSED });
    expect(MENU_WIDTH_COLLAPSED).toBe(50);
    useAppStore.getState().toggleCollapse();
    expect(useAppStore.getState()).toMatchObject({ collapse: false, collapseWidth: 282 });
  });

  it('SHELL-20: leaving a study clears the stored study name, resets the home index and restores the menu width', () => {
    const state = useAppStore.getState();
    state.setStudyName('脊柱侧弯队列');
    state.setHomeIndex(3);
    state.setCollapse(true);
    expect(localStorage.getItem('studyName')).toBe('脊柱侧弯队列');
    useAppStore.getState().leaveStudy();
    expect(useAppStore.getState()).toMatchObject({
      studyName: null,
      homeIndex: 0,
      collapse: false,
      collapseWidth: 282,
    });
    expect(localStorage.getItem('studyName')).toBeNull();
  });

  it('SHELL-14/SHELL-28: refreshing a tab throws its kept-alive page away', () => {
    useAppStore.getState().dropCache('/sys/user');
    useAppStore.getState().dropCache('/sys/user');
    expect(useAppStore.getState().cacheEpoch['/sys/user']).toBe(2);
  });
});
