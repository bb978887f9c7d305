import { hasPermission, type SystemPermission } from '@ecrf/core';

export { hasPermission };

/** What the signed-in user holds: the stored button-permission list and getInfo's permissions. */
export interface AccessSource {
  buttonPermissions: readonly string[];
  permissions: readonly string[];
}

/**
 * platform §6: a guarded element shows when its code is in the stored list or in the user's
 * permissions; the administrator's *:*:* grants everything (core hasPermission).
 */
export function canAccess(source: AccessSource, code: SystemPermission): boolean {
  return hasPermission(source.buttonPermissions, code) || hasPermission(source.permissions, code);
}

/** platform §6: the route-level check always passes; pages guard their buttons instead. */
export function canEnterRoute(): boolean {
  return true;
}

export function createAccess(source: AccessSource): { can: (code: SystemPermission) => boolean } {
  return { can: (code) => canAccess(source, code) };
}
