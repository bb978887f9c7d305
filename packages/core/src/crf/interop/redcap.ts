import type { CrfDefinition, CrfNode } from '../crf-definition.schema.js';
import { finishImport, type ImportResult } from './import-result.js';
import { parseRedcapCsv, type RedcapField } from './redcap-dictionary.js';
import { readEcrfTags, type RowsOrigin } from './redcap-ecrf-tags.js';
import { fieldToNode, stripHtml } from './redcap-fields.js';
import { redcapFieldKind } from './redcap-logic.js';

export { parseRedcapCsv, REDCAP_COLUMNS, REDCAP_FIELD_KEYS, type RedcapField } from './redcap-dictionary.js';
export { normalizeDateBound } from './redcap-fields.js';
export {
  operandKind,
  redcapComparison,
  redcapFieldKind,
  translateRedcapLogic,
  type OperandKind,
  type RedcapComparison,
  type RedcapFieldKind,
  type Translation,
} from './redcap-logic.js';

/** REDCap form names are machine names; a readable title replaces the underscores. */
const formTitle = (form: string) => form.replace(/_/g, ' ').trim();

/**
 * REDCap data dictionary (the 18-column CSV) to CRF definitions, one per form. Every field type is
 * mapped; branching logic and calculations are rewritten into showIf and calc; whatever cannot be
 * carried over is reported per field as a warning, never dropped silently. The mapping table is in
 * docs/crf-format.md.
 */
export function importRedcapDictionary(csv: string): ImportResult {
  const { fields, issues } = parseRedcapCsv(csv);
  if (issues.some((i) => i.severity === 'error')) return { ok: false, definitions: [], issues };
  const forms = new Map<string, RedcapField[]>();
  for (const field of fields) {
    if (!field.variable || !field.form) {
      issues.push({
        severity: 'error',
        row: field.row,
        field: field.variable || undefined,
        message: '缺少字段名或表单名',
      });
      continue;
    }
    if (!forms.has(field.form)) forms.set(field.form, []);
    forms.get(field.form)!.push(field);
  }
  const candidates = [...forms].map(([form, formFields]) => {
    const variables = new Set(formFields.map((f) => f.variable));
    const kinds = new Map(formFields.map((f) => [f.variable, redcapFieldKind(f)]));
    const rows = new Map(formFields.map((f) => [f.variable, f.row]));
    const children: CrfNode[] = [];
    let container = children;
    let sectionCount = 0;
    let matrix: { name: string; node: CrfNode } | null = null;
    for (const field of formFields) {
      const warn = (message: string) =>
        issues.push({ severity: 'warning', form, field: field.variable, row: field.row, message });
      if (field.section && !(matrix && field.matrixGroup === matrix.name)) {
        sectionCount += 1;
        const section: CrfNode = {
          name: `${form}_section_${sectionCount}`,
          title: stripHtml(field.section),
          type: 'section',
          option: {},
          children: [],
        };
        children.push(section);
        container = section.children;
      }
      const node = fieldToNode(field, (v) => kinds.get(v), warn);
      if (field.matrixGroup) {
        if (!matrix || matrix.name !== field.matrixGroup) {
          // Matrix group names live apart from variable names in REDCap; ours share one namespace.
          const name = variables.has(field.matrixGroup) ? `${field.matrixGroup}_matrix` : field.matrixGroup;
          // The matrix header is the section header of its first field, already shown by the section.
          const group: CrfNode = {
            name,
            title: field.section ? '' : field.matrixGroup,
            type: 'group',
            option: { showStyle: 'table' },
            children: [],
          };
          matrix = { name: field.matrixGroup, node: group };
          container.push(group);
        }
        matrix.node.children.push(node);
        continue;
      }
      matrix = null;
      container.push(node);
    }
    // Our export's tags on a form's fields: its title, or the list group or table it was written from.
    const tags = formFields.map((f) => readEcrfTags(f.annotation));
    const title = tags.find((t) => t.formTitle)?.formTitle ?? formTitle(form);
    const origin = tags.find((t) => t.rows)?.rows ?? null;
    const definition: CrfDefinition = { id: form, title, option: {}, children };
    return { form, definition, rowOf: (name: string) => rows.get(name), origin };
  });
  return finishImport(foldRows(candidates, issues), issues);
}

type Candidate = {
  form: string;
  definition: CrfDefinition;
  rowOf: (name: string) => number | undefined;
  origin: RowsOrigin | null;
};

/**
 * A list group or table our export wrote as a form of its own goes back into its form, after the field it followed
 * (at the start without one); the section header the export gave it (its title) is not a section of its own.
 */
function foldRows(candidates: Candidate[], issues: ImportResult['issues']): Candidate[] {
  const byForm = new Map(candidates.map((c) => [c.form, c]));
  const folded = new Set<Candidate>();
  for (const candidate of candidates) {
    const { origin } = candidate;
    const parent = origin ? byForm.get(origin.form) : undefined;
    if (!origin || !parent || parent === candidate || parent.origin) continue;
    let children = candidate.definition.children;
    const [only] = children;
    if (children.length === 1 && only?.type === 'section' && only.title === origin.title) children = only.children;
    const rows: CrfNode = { name: origin.name, title: origin.title, type: origin.type, option: {}, children };
    insertAfter(parent.definition.children, origin.after, rows);
    const rowOf = parent.rowOf;
    parent.rowOf = (name) => rowOf(name) ?? candidate.rowOf(name);
    folded.add(candidate);
    issues.push({
      severity: 'warning',
      form: candidate.form,
      message: `表单 ${candidate.form} 是表单 ${origin.form} 的${origin.type === 'table' ? '表格' : '列表组'}“${origin.title || origin.name}”（本平台导出时拆出），已放回原表单`,
    });
  }
  return candidates.filter((c) => !folded.has(c));
}

/** Puts `node` right after the node named `after` wherever it is (a section's items too); first without one. */
function insertAfter(nodes: CrfNode[], after: string | null, node: CrfNode): void {
  const place = (list: CrfNode[]): boolean => {
    const at = list.findIndex((n) => n.name === after);
    if (at >= 0) {
      list.splice(at + 1, 0, node);
      return true;
    }
    return list.some((n) => place(n.children));
  };
  if (after === null || !place(nodes)) {
    if (after === null) nodes.unshift(node);
    else nodes.push(node);
  }
}
