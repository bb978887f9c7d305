import type { ItemState } from '@ecrf/core';

const sameList = (a: readonly unknown[], b: readonly unknown[]) =>
  a.length === b.length && a.every((v, i) => Object.is(v, b[i]));

/** Render skipping needs identity, not the value rule of core: a new array with the same entries is the same. */
function sameReference(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  return Array.isArray(a) && Array.isArray(b) && sameList(a, b);
}

/**
 * Whether two states of one item look the same to a widget. The engine keeps unchanged states as
 * the same objects between incremental runs, except inside list groups and tables, whose rows are
 * re-evaluated together: this lets an untouched cell skip its render.
 */
export function sameItemState(a: ItemState | undefined, b: ItemState | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  return (
    a.visible === b.visible &&
    a.required === b.required &&
    a.readOnly === b.readOnly &&
    a.calculated === b.calculated &&
    a.range === b.range &&
    a.additionVisible === b.additionVisible &&
    a.missing === b.missing &&
    sameReference(a.value, b.value) &&
    sameList(a.errors, b.errors) &&
    sameList(a.warnings, b.warnings)
  );
}
