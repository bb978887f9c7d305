/**
 * Pure permission decisions shared by the browser (hiding and disabling controls)
 * and the server (guards). A permission list is the union of the codes of every
 * menu node (C and F) that the user's enabled roles grant.
 */
export const ALL_PERMISSIONS = '*:*:*';

export function hasPermission(granted: readonly string[], code: string): boolean {
  return granted.includes(ALL_PERMISSIONS) || granted.includes(code);
}

export function hasAnyPermission(granted: readonly string[], codes: readonly string[]): boolean {
  return codes.some((code) => hasPermission(granted, code));
}
