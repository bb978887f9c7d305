import type { CrfDefinition, CrfNode } from '../crf-definition.schema.js';
import { finishImport, type ImportResult } from './import-result.js';
import { parseRedcapCsv, type RedcapField } from './redcap-dictionary.js';
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
    const definition: CrfDefinition = { id: form, title: formTitle(form), option: {}, children };
    return { form, definition, rowOf: (name: string) => rows.get(name) };
  });
  return finishImport(candidates, issues);
}
