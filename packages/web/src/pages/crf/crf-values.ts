import {
  isEmptyValue,
  isRowType,
  isValueType,
  itemTitle,
  nodesByName,
  valueText,
  type CrfDefinition,
  type CrfNode,
} from '@ecrf/core';

/** A value item of a form at the top level of its values (a list group or table counts as one). */
export interface FormItem {
  name: string;
  title: string;
  node: CrfNode;
  /** Titles of the sections, groups and cards it sits in, outermost first. */
  path: string[];
  /** The columns of a list group or table. */
  columns: CrfNode[];
}

const titleOf = (node: CrfNode) => node.title || node.option.title || node.name;

/** The form's value items in display order: what history, SDV and queries attach to. */
export function formItems(definition: CrfDefinition): FormItem[] {
  const out: FormItem[] = [];
  const walk = (nodes: readonly CrfNode[], path: string[]) => {
    for (const node of nodes) {
      if (isRowType(node.type)) {
        if (node.name) {
          out.push({
            name: node.name,
            title: titleOf(node),
            node,
            path,
            columns: node.children.filter((c) => c.name && isValueType(c.type)),
          });
        }
        continue;
      }
      if (node.name && isValueType(node.type)) {
        out.push({ name: node.name, title: titleOf(node), node, path, columns: [] });
      }
      if (node.children.length > 0) walk(node.children, node.title ? [...path, node.title] : path);
    }
  };
  walk(definition.children, []);
  return out;
}

export { itemTitle, nodesByName };

/** A stored value as a person reads it: the one rule in core, under the name the pages use. */
export const formatValue = valueText;

/** The text of a value as stored in an audit row or a query (no record around it). */
export function formatLooseValue(
  nodes: ReadonlyMap<string, CrfNode>,
  name: string | null | undefined,
  value: unknown,
): string {
  if (isEmptyValue(value)) return '';
  const node = name ? nodes.get(name) : undefined;
  return formatValue(node, value);
}
