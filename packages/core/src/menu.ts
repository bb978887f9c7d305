/** Shell menu node (platform §3): M group, C leaf page, F button permission. */
export type MenuType = 'M' | 'C' | 'F';

export interface MenuNode {
  menuId: number;
  parentId: number;
  type: MenuType;
  code: string;
  perms: string | null;
  path: string | null;
  level: 0 | 1;
  orderNum: number;
  status: number;
  meta: { title: string; icon: string | null; hidden: boolean };
  children: MenuNode[];
}

/** Menus the project layout never shows (platform §6). */
export const PROJECT_MENU_HIDDEN_CODES = ['project.biology', 'project.crfUpload'] as const;

export function buildTree<T extends { parentId: number; children?: T[] }>(
  rows: readonly T[],
  idOf: (row: T) => number,
): T[] {
  const byId = new Map<number, T>();
  for (const row of rows) byId.set(idOf(row), { ...row, children: [] });
  const roots: T[] = [];
  for (const node of byId.values()) {
    const parent = byId.get(node.parentId);
    if (parent && parent !== node) parent.children!.push(node);
    else roots.push(node);
  }
  return roots;
}
