import type { TreeOption } from '../../../api/system.api';

export interface CheckState {
  checked: number[];
  halfChecked: number[];
}

function leavesOf(nodes: readonly TreeOption[], into: Set<number> = new Set()): Set<number> {
  for (const node of nodes) {
    if (node.children?.length) leavesOf(node.children, into);
    else into.add(node.id);
  }
  return into;
}

/**
 * The check state of a menu tree given its checked leaves. A role's stored menu ids hold
 * parents too (checked and half-checked alike), so a tree is restored from its leaves only:
 * feeding a parent id to a cascading tree would check every child under it.
 */
export function checkStateFromLeaves(tree: readonly TreeOption[], keys: Iterable<number>): CheckState {
  const leaves = leavesOf(tree);
  const wanted = new Set([...keys].filter((key) => leaves.has(key)));
  const checked: number[] = [];
  const halfChecked: number[] = [];

  const visit = (node: TreeOption): 'all' | 'some' | 'none' => {
    if (!node.children?.length) {
      if (wanted.has(node.id)) {
        checked.push(node.id);
        return 'all';
      }
      return 'none';
    }
    const states = node.children.map(visit);
    if (states.every((s) => s === 'all')) {
      checked.push(node.id);
      return 'all';
    }
    if (states.some((s) => s !== 'none')) {
      halfChecked.push(node.id);
      return 'some';
    }
    return 'none';
  };
  tree.forEach(visit);
  return { checked, halfChecked };
}

/** menuIds sent for a role: every checked node plus every half-checked ancestor. */
export function menuIdsOf(state: CheckState): number[] {
  return [...new Set([...state.checked, ...state.halfChecked])];
}
