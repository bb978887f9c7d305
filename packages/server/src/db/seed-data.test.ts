import { describe, expect, it } from 'vitest';
import { SYSTEM_PERMISSIONS } from '@ecrf/core';
import { MAIN_MENUS, PROJECT_MENUS, type SeedMenu } from './seed-data.js';

const permsOf = (menus: readonly SeedMenu[]): string[] =>
  menus.flatMap((menu) => [...(menu.perms ? [menu.perms] : []), ...permsOf(menu.children ?? [])]);

describe('seed data', () => {
  // The type keeps a seeded key inside the list; this keeps the list from holding a key no menu grants.
  it('the system permission keys the guards and pages check are exactly the perms of the seeded menus', () => {
    expect(new Set(permsOf([...MAIN_MENUS, ...PROJECT_MENUS]))).toEqual(new Set(SYSTEM_PERMISSIONS));
  });
});
