import { create } from 'zustand';
import { storage } from './local-storage';

/** platform §9: side menu width expanded and collapsed. */
export const MENU_WIDTH_EXPANDED = 282;
export const MENU_WIDTH_COLLAPSED = 50;

export interface VisitedView {
  /** Full path with query, used to reopen the tab as it was. */
  path: string;
  /** One tab per path name; a different query updates the tab instead of adding one. */
  pathname: string;
  name: string;
  title: string;
  /** Pinned tabs cannot be closed (platform §2: "some pinned"). */
  affix?: boolean;
}

export const STUDY_LIST_VIEW: VisitedView = {
  path: '/studyList',
  pathname: '/studyList',
  name: 'studyList',
  title: '项目列表',
  affix: true,
};

/** Result of a close action: the remaining tabs and where to go, or null to stay. */
export interface CloseResult {
  views: VisitedView[];
  next: string | null;
}

export function addView(views: readonly VisitedView[], view: VisitedView): VisitedView[] {
  const index = views.findIndex((v) => v.pathname === view.pathname);
  if (index < 0) return [...views, view];
  const current = views[index];
  if (current.path === view.path && current.title === view.title) return views as VisitedView[];
  const next = [...views];
  next[index] = { ...view, affix: current.affix || view.affix };
  return next;
}

/** Closing the active tab goes to the last remaining tab, or to / when none is left (SHELL-29). */
export function closeView(views: readonly VisitedView[], pathname: string, activePathname: string): CloseResult {
  const target = views.find((v) => v.pathname === pathname);
  if (!target || target.affix) return { views: [...views], next: null };
  const rest = views.filter((v) => v.pathname !== pathname);
  if (pathname !== activePathname) return { views: rest, next: null };
  return { views: rest, next: rest.at(-1)?.path ?? '/' };
}

export function closeOtherViews(
  views: readonly VisitedView[],
  keepPathname: string,
  activePathname: string,
): CloseResult {
  const rest = views.filter((v) => v.affix || v.pathname === keepPathname);
  const kept = rest.find((v) => v.pathname === keepPathname);
  return { views: rest, next: kept && keepPathname !== activePathname ? kept.path : null };
}

export function closeAllViews(views: readonly VisitedView[], activePathname: string): CloseResult {
  const rest = views.filter((v) => v.affix);
  if (rest.some((v) => v.pathname === activePathname)) return { views: rest, next: null };
  return { views: rest, next: rest.at(-1)?.path ?? '/' };
}

export interface AppState {
  collapse: boolean;
  collapseWidth: number;
  visitedViews: VisitedView[];
  /** Areas whose data changed and must be announced to other clients (SHELL-30, SHELL-32). */
  dataSyncScope: string[];
  /** Current study from the :id of project routes (SHELL-13). */
  studyId: string | null;
  studyName: string | null;
  /** Which panel the study home shows; the back link resets it (SHELL-20). */
  homeIndex: number;
  /** Bumped to throw away a kept-alive page so that refresh remounts it. */
  cacheEpoch: Record<string, number>;
  setCollapse: (collapse: boolean) => void;
  toggleCollapse: () => void;
  restoreMenuWidth: () => void;
  visit: (view: VisitedView) => void;
  setVisitedViews: (views: VisitedView[]) => void;
  resetViews: () => void;
  dropCache: (pathname: string) => void;
  setDataSyncScope: (scope: string[]) => void;
  setStudyId: (studyId: string | null) => void;
  setStudyName: (name: string | null) => void;
  setHomeIndex: (index: number) => void;
  leaveStudy: () => void;
}

export const useAppStore = create<AppState>()((set) => ({
  collapse: false,
  collapseWidth: MENU_WIDTH_EXPANDED,
  visitedViews: [STUDY_LIST_VIEW],
  dataSyncScope: [],
  studyId: null,
  studyName: storage.getStudyName(),
  homeIndex: 0,
  cacheEpoch: {},

  setCollapse: (collapse) => set({ collapse, collapseWidth: collapse ? MENU_WIDTH_COLLAPSED : MENU_WIDTH_EXPANDED }),
  toggleCollapse: () =>
    set((s) => ({ collapse: !s.collapse, collapseWidth: s.collapse ? MENU_WIDTH_EXPANDED : MENU_WIDTH_COLLAPSED })),
  restoreMenuWidth: () => set({ collapse: false, collapseWidth: MENU_WIDTH_EXPANDED }),
  visit: (view) => set((s) => ({ visitedViews: addView(s.visitedViews, view) })),
  setVisitedViews: (visitedViews) => set({ visitedViews }),
  resetViews: () => set({ visitedViews: [STUDY_LIST_VIEW], cacheEpoch: {} }),
  dropCache: (pathname) =>
    set((s) => ({ cacheEpoch: { ...s.cacheEpoch, [pathname]: (s.cacheEpoch[pathname] ?? 0) + 1 } })),
  setDataSyncScope: (dataSyncScope) => set({ dataSyncScope }),
  setStudyId: (studyId) => set({ studyId }),
  setStudyName: (studyName) => {
    storage.setStudyName(studyName);
    set({ studyName });
  },
  setHomeIndex: (homeIndex) => set({ homeIndex }),
  leaveStudy: () => {
    storage.setStudyName(null);
    set({ studyName: null, homeIndex: 0, collapse: false, collapseWidth: MENU_WIDTH_EXPANDED });
  },
}));
