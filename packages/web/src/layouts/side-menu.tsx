import { useMemo, useState } from 'react';
import { Menu, type MenuProps } from 'antd';
import { useLocation } from 'react-router';
import { useSafeNavigate } from '../hooks/use-safe-navigate';
import { menuIcon } from './menu-icon';
import { findEntry, menuTrail, resolveMenuPath, type SideMenuEntry } from './menu-tree';

type MenuItem = Required<MenuProps>['items'][number];

function toItems(entries: readonly SideMenuEntry[]): MenuItem[] {
  return entries.map((entry) =>
    entry.children
      ? { key: entry.key, label: entry.title, icon: menuIcon(entry.icon), children: toItems(entry.children) }
      : { key: entry.key, label: entry.title, icon: menuIcon(entry.icon) },
  );
}

interface SideMenuProps {
  entries: readonly SideMenuEntry[];
  studyId: string | null;
  collapsed: boolean;
}

/** The dark side menu; a leaf opens its path and keeps the current query (SHELL-16). */
export function SideMenu({ entries, studyId, collapsed }: SideMenuProps) {
  const location = useLocation();
  const navigate = useSafeNavigate();
  const trail = useMemo(() => menuTrail(entries, location.pathname, studyId), [entries, location.pathname, studyId]);
  const trailKey = trail.join('/');
  const [openKeys, setOpenKeys] = useState<string[]>(() => trail.slice(0, -1));
  const [openedFor, setOpenedFor] = useState(trailKey);

  // Arriving at a page opens the groups above it, keeping the groups the user opened.
  if (openedFor !== trailKey) {
    setOpenedFor(trailKey);
    const parents = trail.slice(0, -1);
    if (parents.length) setOpenKeys((keys) => [...new Set([...keys, ...parents])]);
  }

  const items = useMemo(() => toItems(entries), [entries]);

  const onClick: MenuProps['onClick'] = ({ key }) => {
    const entry = findEntry(entries, key);
    if (!entry?.path) return;
    navigate({ pathname: resolveMenuPath(entry.path, studyId), search: location.search });
  };

  return (
    <Menu
      theme="dark"
      mode="inline"
      items={items}
      selectedKeys={trail.length ? [trail[trail.length - 1]] : []}
      {...(collapsed ? {} : { openKeys, onOpenChange: setOpenKeys })}
      onClick={onClick}
      style={{ borderInlineEnd: 0 }}
    />
  );
}
