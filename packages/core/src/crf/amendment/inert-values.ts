import { isRowType, isValueType, type CrfDefinition } from '../crf-definition.schema.js';
import { additionKey, getCompiledForm, unitKey } from '../evaluate-form.js';
import { sameValue } from '../record-values.js';
import type { RowValues } from '../value-shapes.js';

/** The stored keys a version knows: its top-level items (with their addition and unit), and each list's cells. */
export function knownValueKeys(definition: CrfDefinition): {
  top: ReadonlySet<string>;
  cells: ReadonlyMap<string, ReadonlySet<string>>;
} {
  const compiled = getCompiledForm(definition);
  const keys = (name: string) => [name, additionKey(name), unitKey(name)];
  const top = new Set<string>();
  const cells = new Map<string, Set<string>>();
  for (const info of compiled.nodes) {
    if (!info.node.name || !isValueType(info.node.type)) continue;
    if (!info.rowOwner) {
      keys(info.node.name).forEach((key) => top.add(key));
      if (isRowType(info.node.type)) cells.set(info.node.name, new Set());
      continue;
    }
    const owner = cells.get(info.rowOwner.node.name) ?? new Set<string>();
    keys(info.node.name).forEach((key) => owner.add(key));
    cells.set(info.rowOwner.node.name, owner);
  }
  return { top, cells };
}

const isRowList = (value: unknown): value is RowValues[] =>
  Array.isArray(value) && value.every((row) => typeof row === 'object' && row !== null && !Array.isArray(row));

/**
 * The values a save under `definition` stores, with the inert values of the stored record kept (issue 36: a removed
 * item's value is never deleted). The engine's values (`next`) hold only what the definition knows; a record moved
 * from an older version also holds values of items the version removed. Those stay: every stored top-level key the
 * definition does not know, and, in a list whose row keeps its place and every cell the definition knows, the cells
 * of removed columns (a row that moved or changed loses them; its history keeps them). Pure: returns a new object.
 */
export function keepInertValues(
  definition: CrfDefinition,
  stored: Readonly<Record<string, unknown>>,
  next: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const { top, cells } = knownValueKeys(definition);
  const out: Record<string, unknown> = { ...next };
  for (const [key, value] of Object.entries(stored)) {
    if (!top.has(key) && !Object.hasOwn(out, key)) out[key] = value;
  }
  for (const [name, known] of cells) {
    const before = stored[name];
    const after = out[name];
    if (!isRowList(before) || !isRowList(after)) continue;
    out[name] = after.map((row, index) => {
      const old = before[index];
      if (!old) return row;
      const inert = Object.keys(old).filter((key) => !known.has(key) && !Object.hasOwn(row, key));
      const same = [...known].every((key) => sameValue(old[key], row[key]));
      return inert.length > 0 && same ? { ...row, ...Object.fromEntries(inert.map((key) => [key, old[key]])) } : row;
    });
  }
  return out;
}
