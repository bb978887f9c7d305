import type { Key } from 'react';
import type { PermissionNode } from '../../../api/study.api';

function collectLeaves(nodes: readonly PermissionNode[], into: string[], root: boolean): string[] {
  for (const node of nodes) {
    if (node.children?.length) collectLeaves(node.children, into, false);
    // The roots are the headings 功能权限 and CRF权限, even while a study has no CRF under the latter.
    else if (!root) into.push(node.key);
  }
  return into;
}

/** The leaf keys of the tree in display order: the permissions a role can actually hold. */
export function leafKeys(tree: readonly PermissionNode[]): string[] {
  return collectLeaves(tree, [], true);
}

/**
 * The `permissions` a role is saved with: the checked leaves, in tree order. A cascading tree also
 * reports the group nodes (功能权限, CRF权限, one per CRF) as checked; those are headings, not
 * permissions, and keys outside the tree are dropped.
 */
export function permissionsFromChecked(tree: readonly PermissionNode[], checked: readonly Key[]): string[] {
  const wanted = new Set(checked.map(String));
  return leafKeys(tree).filter((key) => wanted.has(key));
}

/**
 * The keys a cascading tree is given for a stored role: only the leaves it holds. A group key
 * would tick every permission under it, including CRF actions added after the role was saved.
 */
export function checkedFromPermissions(tree: readonly PermissionNode[], permissions: readonly string[]): string[] {
  return permissionsFromChecked(tree, permissions);
}
