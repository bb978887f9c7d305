import {
  matchRecognised,
  recognisedEntries,
  type CrfDefinition,
  type CrfNode,
  type RangeOverride,
  type RecognisedFill,
} from '@ecrf/core';

/**
 * A recognition template a form offers: the identify options of the form itself (crf.option), or of a
 * section, group or card of it, whose items that template's report fills (docs/recognition.md).
 */
export interface IdentifyTemplate {
  /** Stable key for the picker. */
  key: string;
  label: string;
  type: number;
  index: number;
  identifyId: number | null;
  /** The nodes whose items the template fills: the whole form, or one part of it. */
  scope: readonly CrfNode[];
}

const num = (value: unknown): number | null => {
  if (value === undefined || value === null || value === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
};

/**
 * The templates a form offers (RECOG-02, RECOG-04): its own identify type first, then every part carrying one.
 * Two parts with the same type and index are one template.
 */
export function identifyTemplates(
  definition: CrfDefinition,
  formOption: Readonly<Record<string, unknown>>,
  formTitle: string,
): IdentifyTemplate[] {
  const out: IdentifyTemplate[] = [];
  const add = (option: Readonly<Record<string, unknown>>, label: string, scope: readonly CrfNode[]) => {
    const type = num(option.identifyType);
    if (type === null || type <= 0) return;
    const index = num(option.identifyIndex) ?? 0;
    const key = `${type}:${index}`;
    if (out.some((t) => t.key === key)) return;
    out.push({ key, label, type, index, identifyId: num(option.identifyId), scope });
  };
  add({ ...definition.option, ...formOption }, formTitle, definition.children);
  const walk = (nodes: readonly CrfNode[]) => {
    for (const node of nodes) {
      if (node.children.length > 0) {
        add(node.option, node.title || node.name, node.children);
        walk(node.children);
      }
    }
  };
  walk(definition.children);
  return out;
}

/** What a recognition fills into the form: values by item name, and the report rows no item took. */
export interface RecognitionFill {
  values: Record<string, string>;
  filled: RecognisedFill[];
  unmatched: string[];
}

/**
 * Reads the answer's `data` in its type's shape (RECOG-09, RECOG-10) and matches it to the template's items, judged
 * by the patient's site ranges where the form has them (参考范围, use-site-ranges.ts).
 */
export function fillFromAnswer(
  template: IdentifyTemplate,
  data: unknown,
  siteRanges: Readonly<Record<string, RangeOverride>> = {},
): RecognitionFill {
  const entries = recognisedEntries(template.type, data);
  const { filled, unmatched } = matchRecognised(template.scope, entries, siteRanges);
  const values: Record<string, string> = {};
  for (const fill of filled) values[fill.itemName] = fill.value;
  return { values, filled, unmatched: unmatched.map((entry) => entry.name) };
}

/**
 * The items still marked 识别 after the nurse's edit: an item she changed is hers now (a confirmed or
 * corrected value); the others stay marked until she confirms them.
 */
export function afterEdit(marked: ReadonlySet<string>, changedName: string): ReadonlySet<string> {
  if (!marked.has(changedName)) return marked;
  const next = new Set(marked);
  next.delete(changedName);
  return next;
}
