import { useEffect, useMemo } from 'react';
import type { MenuNode } from '@ecrf/core';
import { setDisplayTimeZone } from '../utils/format-date';
import { menuEntries } from './menu-tree';
import { SideMenu } from './side-menu';

/** Side menu of the main layout: the level-0 entries of the user's menu (SHELL-17). */
export function MainLayoutMenu({ menus, collapsed }: { menus: readonly MenuNode[]; collapsed: boolean }) {
  const entries = useMemo(() => menuEntries(menus, 0), [menus]);
  // Platform pages (users, studies, logs) show times in the platform's zone, not the last study's.
  useEffect(() => setDisplayTimeZone(null), []);
  return <SideMenu entries={entries} studyId={null} collapsed={collapsed} />;
}
