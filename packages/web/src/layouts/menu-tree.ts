import { buildTree, type MenuNode } from '@ecrf/core';

/** A side-menu entry: a group (M) with children, or a leaf (C) that opens `path`. */
export interface SideMenuEntry {
  key: string;
  code: string;
  title: string;
  icon: string | null;
  path: string | null;
  children?: SideMenuEntry[];
}

function byOrder(a: MenuNode, b: MenuNode): number {
  return (a.orderNum ?? 0) - (b.orderNum ?? 0);
}

/** getRouters answers a tree; a flat answer (parentId links only) is turned into one. */
export function asTree(nodes: readonly MenuNode[]): MenuNode[] {
  const nested = nodes.some((node) => (node.children?.length ?? 0) > 0);
  return nested ? [...nodes] : buildTree(nodes, (node) => node.menuId);
}

/**
 * The menu of one layout (SHELL-15, SHELL-17, SHELL-18): level 0 builds the main layout,
 * level 1 the project layout. Button nodes, hidden nodes, disabled nodes and the given codes
 * are left out; groups left without entries disappear.
 */
export function menuEntries(
  nodes: readonly MenuNode[],
  level: 0 | 1,
  hiddenCodes: readonly string[] = [],
): SideMenuEntry[] {
  const convert = (node: MenuNode): SideMenuEntry | null => {
    if (node.type === 'F' || node.meta?.hidden || node.status === 1 || hiddenCodes.includes(node.code)) return null;
    const entry: SideMenuEntry = {
      key: `menu-${node.menuId}`,
      code: node.code,
      title: node.meta?.title ?? node.code,
      icon: node.meta?.icon ?? null,
      path: node.path,
    };
    if (node.type === 'M') {
      const children = [...(node.children ?? [])]
        .sort(byOrder)
        .map(convert)
        .filter((e): e is SideMenuEntry => e !== null);
      if (children.length === 0) return null;
      return { ...entry, children };
    }
    return entry;
  };
  return asTree(nodes)
    .filter((node) => node.level === level)
    .sort(byOrder)
    .map(convert)
    .filter((e): e is SideMenuEntry => e !== null);
}

/** Project leaves carry ':id'; the current study fills it in. */
export function resolveMenuPath(path: string, studyId: string | null): string {
  const withId = studyId ? path.replace(':id', studyId) : path;
  return withId.startsWith('/') ? withId : `/${withId}`;
}

/** Keys from the root to the leaf that shows `pathname`, or [] when no leaf does. */
export function menuTrail(entries: readonly SideMenuEntry[], pathname: string, studyId: string | null): string[] {
  let best: string[] = [];
  let bestLength = -1;
  const walk = (list: readonly SideMenuEntry[], trail: string[]) => {
    for (const entry of list) {
      const here = [...trail, entry.key];
      if (entry.children) {
        walk(entry.children, here);
      } else if (entry.path) {
        const target = resolveMenuPath(entry.path, studyId);
        const matches = pathname === target || pathname.startsWith(`${target}/`);
        if (matches && target.length > bestLength) {
          best = here;
          bestLength = target.length;
        }
      }
    }
  };
  walk(entries, []);
  return best;
}

export function findEntry(entries: readonly SideMenuEntry[], key: string): SideMenuEntry | undefined {
  for (const entry of entries) {
    if (entry.key === key) return entry;
    const inner = entry.children ? findEntry(entry.children, key) : undefined;
    if (inner) return inner;
  }
  return undefined;
}
