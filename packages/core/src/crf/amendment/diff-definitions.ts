import { isContainerType, isValueType, type CrfDefinition, type CrfNode } from '../crf-definition.schema.js';
import type { DefinitionDiff, ItemRef } from './amendment-types.js';

/** An item's label as every reader shows it: its title, else its option title, else its name. */
export const itemLabel = (node: Pick<CrfNode, 'name' | 'title' | 'option'>) =>
  node.title || node.option.title || node.name;

/**
 * Every named item that holds a value, columns of list groups and tables included, each name once (its first
 * node), in form order: what an amendment compares. Containers and display nodes hold no value and are not items.
 */
export function valueItemsOf(definition: Pick<CrfDefinition, 'children'>): CrfNode[] {
  const out: CrfNode[] = [];
  const seen = new Set<string>();
  const walk = (nodes: readonly CrfNode[]) => {
    for (const node of nodes) {
      if (node.name && isValueType(node.type) && !seen.has(node.name)) {
        seen.add(node.name);
        out.push(node);
      }
      if (!isContainerType(node.type) && !isValueType(node.type)) continue;
      walk(node.children);
    }
  };
  walk(definition.children);
  return out;
}

const ref = (node: CrfNode): ItemRef => ({ name: node.name, label: itemLabel(node), type: node.type });

/**
 * What a new version of a form changes in its items, matched by name (values are carried by name only):
 * - added / removed: names only in the new / the old version;
 * - renamed: a removed and an added item with the same label and type, paired in form order, one to one: a likely
 *   rename, reported for the reader. The pair stays in added and removed too: its values are NOT carried across;
 * - retyped: the same name with another item type;
 * - relabelled: the same name with another label.
 */
export function diffDefinitions(from: CrfDefinition, to: CrfDefinition): DefinitionDiff {
  const before = valueItemsOf(from);
  const after = valueItemsOf(to);
  const oldByName = new Map(before.map((n) => [n.name, n]));
  const newByName = new Map(after.map((n) => [n.name, n]));
  const added = after.filter((n) => !oldByName.has(n.name));
  const removed = before.filter((n) => !newByName.has(n.name));

  const renamed: DefinitionDiff['renamed'] = [];
  const paired = new Set<CrfNode>();
  for (const old of removed) {
    const match = added.find((n) => !paired.has(n) && n.type === old.type && itemLabel(n) === itemLabel(old));
    if (!match) continue;
    paired.add(match);
    renamed.push({ from: old.name, to: match.name, label: itemLabel(old) });
  }

  const retyped: DefinitionDiff['retyped'] = [];
  const relabelled: DefinitionDiff['relabelled'] = [];
  for (const node of after) {
    const old = oldByName.get(node.name);
    if (!old) continue;
    if (old.type !== node.type) {
      retyped.push({ name: node.name, label: itemLabel(node), fromType: old.type, toType: node.type });
    }
    if (itemLabel(old) !== itemLabel(node)) {
      relabelled.push({ name: node.name, fromLabel: itemLabel(old), toLabel: itemLabel(node) });
    }
  }
  return { added: added.map(ref), removed: removed.map(ref), renamed, retyped, relabelled };
}
