import type { CrfDefinition, CrfNode } from '../crf-definition.schema.js';
import { itemTypeOf } from '../item-types/registry.js';
import { isOn } from '../options.js';
import type { ImportIssue } from './import-result.js';
import { REDCAP_COLUMNS, REDCAP_FIELD_KEYS, type RedcapField } from './redcap-dictionary.js';
import { formTitleTag, rowsOriginTag, type RowsOrigin } from './redcap-ecrf-tags.js';
import { FormContext } from './redcap-export-context.js';
import {
  csvRow,
  emptyRow,
  isContainer,
  isRows,
  LEGAL_NAME,
  legalName,
  titleOfForm,
  uniqueName,
  type Row,
} from './redcap-export-rows.js';
import { FormWalker } from './redcap-export-walker.js';

export { REDCAP_COLUMNS };

export interface RedcapExport {
  /** The dictionary as REDCap reads it: a header row and one row per field, every cell quoted. */
  csv: string;
  /** What was renamed to fit REDCap, approximated, converted or dropped, per form and item. */
  issues: ImportIssue[];
  /** The same rows as objects, in order (the REDCap API's metadata export writes them with its own keys). */
  rows: Array<Omit<RedcapField, 'row'>>;
  /** Where each REDCap variable's value is kept in ours, by variable (descriptive fields have no `item`). */
  sources: Map<string, RedcapFieldSource>;
  /** Every REDCap form written, in order: one per definition, then one per list group or table of it. */
  forms: RedcapFormSource[];
  /** The record ID: the first field's variable. */
  recordId: string;
}

/** A REDCap form and what it stands for: a definition (by index), or one of its list groups or tables. */
export interface RedcapFormSource {
  form: string;
  definition: number;
  /** The list group or table (its name) whose rows are this form's repeating instances; null for the form itself. */
  rows: string | null;
}

/** A REDCap variable and where its value lives: `item` is the key in a record's values (or in a row of `rows`). */
export interface RedcapFieldSource extends RedcapFormSource {
  variable: string;
  item: string | null;
}

export interface RedcapExportOptions {
  /**
   * Always write this variable first as the record ID (a text field of the first form) instead of
   * choosing the first field when it fits: the API's records are keyed by our patient code, not by an item.
   * A first field of that very name that fits (a REDCap project's own `record_id`, imported) is that record ID:
   * nothing is put ahead of it.
   */
  recordId?: string;
}

interface FormPlan {
  definition: CrfDefinition;
  /** The definition's index in the export. */
  index: number;
  /** The REDCap form name. */
  form: string;
  /** Our title, for the issues. */
  title: string;
  nodes: readonly CrfNode[];
  /** A list group or table exported as a form of its own: its parent's items stay readable. */
  parentOf?: FormPlan;
  /** Where a list group's form goes back in its parent (our import reads it from the annotation). */
  origin?: RowsOrigin;
}

/** REDCap's form names are at most 64 characters (MetaData.php). */
const FORM_NAME_MAX = 64;
const formNameOf = (text: string) => text.slice(0, FORM_NAME_MAX).replace(/_+$/, '');
/** A title REDCap can name a form after without losing it: Latin letters, digits, spaces, `_` and `-`. */
const LATIN_TITLE = /^[A-Za-z][A-Za-z0-9_\s-]*$/;

/** The first field a form writes, when it is one REDCap can key records by: a text field shown without logic. */
function fitsRecordId(nodes: readonly CrfNode[]): CrfNode | null {
  for (const node of nodes) {
    const { role } = itemTypeOf(node.type);
    const conditioned = Boolean(node.option.showIf || node.option.trig || node.option.trigex || node.option.calc);
    if (role === 'container') {
      if (node.children.length === 0) continue;
      return conditioned ? null : fitsRecordId(node.children);
    }
    if (role === 'rows') continue;
    const text = node.type === 'input' || node.type === 'text';
    return role === 'value' && text && !conditioned && !isOn(node.option.hidden) ? node : null;
  }
  return null;
}

/**
 * CRF definitions to a REDCap data dictionary: one REDCap form per definition (and one per list group
 * or table, REDCap's repeating forms). Every item type maps to the nearest REDCap field type and
 * validation (the inverse of importRedcapDictionary, docs/crf-format.md §9.3); showIf, triggers and calc
 * become branching logic and calculations; whatever REDCap cannot hold is converted where it can be and
 * otherwise reported in `issues`, never dropped silently.
 */
export function exportRedcapDictionary(
  definitions: readonly CrfDefinition[],
  options: RedcapExportOptions = {},
): RedcapExport {
  return new DictionaryWriter(options).write(definitions);
}

class DictionaryWriter {
  private readonly rows: Row[] = [];
  private readonly issues: ImportIssue[] = [];
  private readonly usedVariables = new Set<string>();
  private readonly usedForms = new Set<string>();
  private readonly usedMatrices = new Set<string>();
  private readonly sources = new Map<string, RedcapFieldSource>();
  private readonly forms: RedcapFormSource[] = [];

  constructor(private readonly options: RedcapExportOptions) {}

  write(definitions: readonly CrfDefinition[]): RedcapExport {
    const { recordId } = this.options;
    const own = recordId !== undefined && fitsRecordId(definitions[0]?.children ?? [])?.name === recordId;
    // Reserved before any item is named, so an item called record_id elsewhere is renamed instead.
    if (recordId && !own) this.usedVariables.add(recordId);
    const plans: FormPlan[] = definitions.map((definition, i) => ({
      definition,
      index: i,
      form: this.formName(definition, i),
      title: definition.title,
      nodes: definition.children,
    }));
    for (const plan of plans) this.forms.push({ form: plan.form, definition: plan.index, rows: null });
    const written = plans.flatMap((plan) => this.writeForm(plan));
    if (recordId && plans[0]) {
      if (!(own && this.rows[0]?.variable === recordId)) {
        this.rows.unshift(emptyRow(recordId, plans[0].form, 'text', 'Record ID'));
      }
    } else this.ensureRecordId(plans[0]);
    for (const plan of [...plans, ...written]) this.tagForm(plan);
    const csv = [csvRow(REDCAP_COLUMNS), ...this.rows.map((row) => csvRow(REDCAP_FIELD_KEYS.map((k) => row[k])))].join(
      '\r\n',
    );
    return {
      csv: `${csv}\r\n`,
      issues: this.issues,
      rows: this.rows,
      sources: this.sources,
      forms: this.forms,
      recordId: this.rows[0]?.variable ?? recordId ?? '',
    };
  }

  /**
   * What REDCap has no column for, as our action tags on the form's first field: a title its name does not give
   * back, and where a list group's form belongs.
   */
  private tagForm(plan: FormPlan) {
    const first = this.rows.find((row) => row.form === plan.form);
    if (!first) return;
    const tag = plan.origin
      ? rowsOriginTag(plan.origin)
      : titleOfForm(plan.form) === plan.title
        ? undefined
        : formTitleTag(plan.title);
    if (tag === undefined) return;
    if (tag === null) {
      this.warn(
        plan.title,
        undefined,
        `表单标题同时含有单引号和双引号，无法写入字段注释：重新导入时标题为 ${titleOfForm(plan.form)}`,
      );
      return;
    }
    first.annotation = first.annotation ? `${first.annotation} ${tag}` : tag;
  }

  private warn(form: string, field: string | undefined, message: string) {
    this.issues.push({ severity: 'warning', form, field, message });
  }

  private formName(definition: CrfDefinition, index: number): string {
    // A form imported from REDCap keeps its name as its id; otherwise the title makes one.
    // A form imported from REDCap keeps its name; a Latin title names it; otherwise the CRF's id (stable, where
    // the title's pinyin would need a dictionary), or its place in the export.
    const fromId =
      typeof definition.id === 'string' && LEGAL_NAME.test(definition.id) ? formNameOf(definition.id) : null;
    const fromTitle = LATIN_TITLE.test(definition.title.trim())
      ? formNameOf(legalName(definition.title.replace(/\s+/g, '_'), ''))
      : '';
    const fallback = typeof definition.id === 'number' ? `crf_${definition.id}` : `form_${index + 1}`;
    const form = this.unique(fromId ?? (fromTitle || fallback), this.usedForms);
    if (titleOfForm(form) !== definition.title) {
      this.warn(
        definition.title,
        undefined,
        `REDCap 表单名只能用小写字母、数字和下划线：表单“${definition.title}”导出为 ${form}（REDCap 按表单名显示表单标题）`,
      );
    }
    return form;
  }

  private unique(base: string, used: Set<string>): string {
    return uniqueName(base, used);
  }

  /** Writes the form's rows; answers the forms of its list groups and tables, written after it. */
  private writeForm(plan: FormPlan): FormPlan[] {
    const { form, title } = plan;
    const names = new Map<string, string>();
    const items = new Map<string, CrfNode>();
    const columns = new Set<string>();
    const subforms: FormPlan[] = [];
    let lastVariable: string | null = null;
    // Variables first (REDCap's are unique across the project), so logic can name them.
    const assign = (nodes: readonly CrfNode[], inRows: boolean) => {
      for (const node of nodes) {
        if (node.name && !names.has(node.name)) {
          items.set(node.name, node);
          if (inRows) columns.add(node.name);
          if (!isContainer(node.type) && !isRows(node.type)) {
            const variable = this.unique(legalName(node.name, `${form}_field`), this.usedVariables);
            names.set(node.name, variable);
            if (!inRows) lastVariable = variable;
            if (variable !== node.name) {
              this.warn(
                title,
                node.name,
                `REDCap 变量名只能用小写字母、数字和下划线且在项目中唯一：${node.name} 导出为 ${variable}`,
              );
            }
          }
        }
        if (isRows(node.type)) {
          if (inRows) continue;
          subforms.push({
            definition: plan.definition,
            index: plan.index,
            form: this.unique(formNameOf(`${form}_${legalName(node.name, 'rows')}`), this.usedForms),
            title,
            nodes: [node],
            parentOf: plan,
            origin: {
              form,
              type: node.type === 'table' ? 'table' : 'listGroup',
              name: node.name,
              title: node.title,
              after: lastVariable,
            },
          });
        }
        assign(node.children, inRows || isRows(node.type));
      }
    };
    assign(plan.nodes, false);
    // Names assigned for this form; the rows below and the sub-forms read them.
    const source = (origin: RedcapFormSource) => (variable: string, item: string | null) => {
      this.sources.set(variable, { ...origin, variable, item });
    };
    const context = new FormContext(
      form,
      title,
      names,
      items,
      columns,
      false,
      (message, field) => this.warn(title, field, message),
      source({ form, definition: plan.index, rows: null }),
    );
    const rules = new Map((plan.definition.crfRules ?? []).map((r) => [r.target, r.formula]));
    const walker = new FormWalker(context, rules, this.rows, this.usedVariables, this.usedMatrices);
    walker.walk(plan.nodes, { conditions: [], section: null, hidden: false, notDisplayed: false });
    walker.finish();
    for (const rule of plan.definition.crfRules ?? []) {
      if (!items.has(rule.target)) this.warn(title, rule.target, `计算规则的目标题目不存在，未导出：${rule.formula}`);
    }
    const extraOption = Object.keys(plan.definition.option ?? {});
    if (extraOption.length > 0 && !plan.parentOf) {
      this.warn(title, undefined, `表单选项 ${extraOption.join(', ')} 在 REDCap 中没有对应，未导出`);
    }
    for (const sub of subforms) {
      const rows = sub.nodes[0]!;
      this.warn(
        title,
        rows.name,
        `${rows.type === 'table' ? '表格' : '列表组'}“${rows.title}”导出为单独的表单 ${sub.form}：REDCap 的重复数据在数据字典之外设置，请在 REDCap 中把它设为重复表单（Repeating instrument）`,
      );
      const origin = { form: sub.form, definition: plan.index, rows: rows.name };
      this.forms.push(origin);
      const subWalker = new FormWalker(
        context.forForm(sub.form, source(origin)),
        rules,
        this.rows,
        this.usedVariables,
        this.usedMatrices,
      );
      subWalker.walk(rows.children, {
        conditions: [rows],
        section: rows.title ? { node: rows, title: rows.title } : null,
        hidden: isOn(rows.option.hidden),
        notDisplayed: isOn(rows.option.notDisplayed),
      });
      subWalker.finish();
    }
    return subforms;
  }

  /** REDCap's first field is the record ID, a text field without logic; one is added when ours is not. */
  private ensureRecordId(first: FormPlan | undefined) {
    if (!first) return;
    const row = this.rows[0];
    if (
      row &&
      row.form === first.form &&
      row.type === 'text' &&
      !row.branching &&
      !row.matrixGroup &&
      !/@CALC/.test(row.annotation)
    ) {
      return;
    }
    const variable = this.unique('record_id', this.usedVariables);
    this.rows.unshift(emptyRow(variable, first.form, 'text', 'Record ID'));
    this.warn(
      first.title,
      variable,
      `REDCap 的第一个字段是记录标识（文本字段），本表单首个字段不适合，已在最前面加入 ${variable}`,
    );
  }
}
