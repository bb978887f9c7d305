import Papa from 'papaparse';
import type { ImportIssue, ImportResult } from './import-result.js';
import { attr, content, list, pickText, type XmlNode } from './odm-xml.js';
import { importRedcapDictionary, REDCAP_COLUMNS, REDCAP_FIELD_KEYS, type RedcapField } from './redcap.js';

/**
 * REDCap's own ODM export ("CDISC ODM (XML)", metadata). REDCap keeps its data dictionary in
 * attributes of its namespace (redcap:Variable, FieldType, BranchingLogic, Calculation,
 * FieldAnnotation, …) and flattens a checkbox into one boolean ItemDef per option (`<var>___<code>`,
 * each with redcap:Variable="<var>", the choices in redcap:CheckboxChoices on their CodeLists). We
 * rebuild the dictionary rows from those attributes and import them with the dictionary importer, so a
 * REDCap project reads the same whether it arrives as a dictionary or as ODM: the same types, logic
 * translation, action tags and warnings.
 */
export const REDCAP_NS = 'https://projectredcap.org';

export function isRedcapOdm(xml: string, odm: XmlNode | undefined): boolean {
  return xml.includes(REDCAP_NS) || /redcap/i.test(attr(odm, 'SourceSystem') ?? '');
}

// REDCap's internal field types, as its ODM writes them, and the names its dictionary uses.
const DICTIONARY_TYPES: Record<string, string> = { textarea: 'notes', select: 'dropdown' };
const DICTIONARY_VALIDATIONS: Record<string, string> = { int: 'integer', float: 'number' };

export function importRedcapOdm(mdv: XmlNode, issues: ImportIssue[]): ImportResult {
  const groups = new Map(list(mdv, 'ItemGroupDef').map((g) => [attr(g, 'OID') ?? '', g]));
  const items = new Map(list(mdv, 'ItemDef').map((i) => [attr(i, 'OID') ?? '', i]));
  const codeLists = new Map(list(mdv, 'CodeList').map((c) => [attr(c, 'OID') ?? '', c]));
  const codeListOf = (def: XmlNode) => codeLists.get(attr(def.CodeListRef as XmlNode | undefined, 'CodeListOID') ?? '');

  const fields: Array<Omit<RedcapField, 'row'>> = [];
  const formOids = new Map<string, string>();
  const formTitles = new Map<string, string>();
  for (const formDef of list(mdv, 'FormDef')) {
    const formOid = attr(formDef, 'OID') ?? '';
    const form = attr(formDef, 'FormName') ?? formOid.replace(/^Form\./, '');
    formOids.set(form, formOid);
    formTitles.set(form, attr(formDef, 'Name') ?? form);
    const seen = new Set<string>();
    for (const groupRef of list(formDef, 'ItemGroupRef')) {
      const groupOid = attr(groupRef, 'ItemGroupOID') ?? '';
      const group = groups.get(groupOid);
      if (!group) {
        issues.push({
          severity: 'error',
          form: formOid,
          field: groupOid,
          message: `ItemGroupRef 引用的 ItemGroupDef 不存在：${groupOid}`,
        });
        continue;
      }
      for (const ref of list(group, 'ItemRef')) {
        const oid = attr(ref, 'ItemOID') ?? '';
        const def = items.get(oid);
        if (!def) {
          issues.push({
            severity: 'error',
            form: formOid,
            field: oid,
            message: `ItemRef 引用的 ItemDef 不存在：${oid}`,
          });
          continue;
        }
        const variable = attr(def, 'Variable') ?? attr(ref, 'Variable') ?? attr(def, 'Name') ?? oid;
        // REDCap's form status field: our platform keeps a form's status itself (REDCap's import skips it too).
        if (variable === `${form}_complete` || seen.has(variable)) continue;
        seen.add(variable);
        fields.push(fieldOf(def, ref, variable, form));
      }
    }
  }

  function fieldOf(def: XmlNode, ref: XmlNode, variable: string, form: string): Omit<RedcapField, 'row'> {
    const rawType = attr(def, 'FieldType') ?? (attr(def, 'DataType') === 'boolean' ? 'truefalse' : 'text');
    const type = DICTIONARY_TYPES[rawType] ?? rawType;
    const validation = attr(def, 'TextValidationType') ?? '';
    let choices = '';
    if (type === 'checkbox') choices = checkboxChoices(def, variable);
    else if (type === 'calc') choices = attr(def, 'Calculation') ?? '';
    else if (type === 'slider') choices = attr(def, 'SliderLabels') ?? '';
    else if (type === 'radio' || type === 'dropdown' || type === 'sql') {
      const cl = codeListOf(def);
      choices = list(cl, 'CodeListItem')
        .map((c) => `${attr(c, 'CodedValue') ?? ''}, ${pickText(c.Decode).text}`)
        .join(' | ');
    }
    let min = '';
    let max = '';
    for (const check of list(def, 'RangeCheck')) {
      const comparator = attr(check, 'Comparator');
      const value = content(list(check, 'CheckValue')[0]).trim();
      if (comparator === 'GE' || comparator === 'GT') min = value;
      if (comparator === 'LE' || comparator === 'LT') max = value;
    }
    const required = attr(def, 'RequiredField') ?? (attr(ref, 'Mandatory') === 'Yes' ? 'y' : '');
    return {
      variable,
      form,
      section: attr(def, 'SectionHeader') ?? '',
      type,
      label: pickText(def.Question).text,
      choices,
      note: attr(def, 'FieldNote') ?? '',
      validation: DICTIONARY_VALIDATIONS[validation] ?? validation,
      min,
      max,
      identifier: attr(def, 'Identifier') ?? '',
      branching: attr(def, 'BranchingLogic') ?? '',
      required,
      alignment: attr(def, 'CustomAlignment') ?? '',
      questionNumber: attr(def, 'QuestionNumber') ?? '',
      matrixGroup: attr(def, 'MatrixGroupName') ?? '',
      matrixRanking: attr(def, 'MatrixRanking') ?? '',
      annotation: attr(def, 'FieldAnnotation') ?? '',
    };
  }

  /** The choices of a checkbox: redcap:CheckboxChoices, else the codes of its `___` ItemDefs. */
  function checkboxChoices(def: XmlNode, variable: string): string {
    const written = attr(codeListOf(def), 'CheckboxChoices');
    if (written) return written;
    return [...items]
      .filter(([, d]) => attr(d, 'Variable') === variable)
      .map(([oid]) => oid.slice(oid.lastIndexOf('___') + 3))
      .map((code) => `${code}, ${code}`)
      .join(' | ');
  }

  const csv = Papa.unparse({
    fields: [...REDCAP_COLUMNS],
    data: fields.map((f) => REDCAP_FIELD_KEYS.map((key) => f[key])),
  });
  const result = importRedcapDictionary(csv);
  // The dictionary's rows are ours, not the file's: issues name the ODM form and the variable instead.
  const variableOfRow = (row: number | undefined) => (row === undefined ? undefined : fields[row - 2]?.variable);
  const mapped = result.issues
    .filter(
      (i) => !(fields.length === 0 && i.message === '数据字典只有列名行，没有任何字段：请从第二行起每行填写一个字段'),
    )
    .map(({ row, ...issue }) => ({
      ...issue,
      form: issue.form === undefined ? undefined : (formOids.get(issue.form) ?? issue.form),
      field: issue.field ?? variableOfRow(row),
    }));
  if (fields.length === 0) {
    mapped.push({ severity: 'error', form: undefined, field: undefined, message: 'ODM 文件中没有可导入的字段' });
  }
  const allIssues = [...issues, ...mapped];
  return {
    ok: result.ok && !allIssues.some((i) => i.severity === 'error'),
    definitions: result.definitions.map((d) => ({ ...d, title: formTitles.get(String(d.id)) || d.title })),
    issues: allIssues,
  };
}
