import { CRF_MSG } from '../crf-messages.js';
import type { CrfDefinition, CrfNode, CrossCheck } from '../crf-definition.schema.js';
import { KNOWN_OPTION_KEYS } from '../crf-definition.schema.js';
import { choicesOf, isOn, toNumber, unitsOf } from '../options.js';
import { parseConverterRule } from '../value-converter.js';
import { parseTriggers, type Trigger } from '../visibility.js';
import { additionKey } from '../evaluate-form.js';
import { itemTypeOf } from '../item-types/registry.js';
import type { ImportIssue } from './import-result.js';
import {
  REDCAP_COLUMNS,
  REDCAP_FIELD_KEYS,
  redcapFieldKind,
  type RedcapField,
  type RedcapFieldKind,
} from './redcap.js';

export { REDCAP_COLUMNS };
import {
  allOf,
  anyOf,
  condText,
  quoteRedcap,
  redcapAtom,
  redcapCalculation,
  redcapCondition,
  UnprintableError,
  type Cond,
  type LogicContext,
} from './redcap-logic-export.js';

type Row = Omit<RedcapField, 'row'>;

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
   */
  recordId?: string;
}

// Every cell quoted, as REDCap writes its own dictionaries: labels hold commas, quotes and line breaks.
const csvCell = (value: string) => `"${value.replace(/"/g, '""')}"`;
const csvRow = (cells: readonly string[]) => cells.map(csvCell).join(',');

/** REDCap labels are HTML: our text is escaped so that `a<b` shows as written (the importer decodes it). */
const html = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** A choice label may not hold REDCap's separator. */
const choiceLabel = (text: string) => html(text).replace(/\|/g, '｜');

/** REDCap names: lowercase letters, digits and underscores, starting with a letter; at most 100 characters. */
const LEGAL_NAME = /^[a-z][a-z0-9_]{0,99}$/;
function legalName(name: string, fallback: string): string {
  const cleaned = name
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/_{2,}/g, '_')
    .replace(/^_+|_+$/g, '');
  if (cleaned === '') return fallback;
  return (/^[a-z]/.test(cleaned) ? cleaned : `v_${cleaned}`).slice(0, 100);
}
/** REDCap derives a form's menu label from its name; the importer reads the name back as the title. */
const titleOfForm = (form: string) => form.replace(/_/g, ' ').trim();

const YES_NO = { optionsValue: '1,0', optionsText: '是,否' };
const TRUE_FALSE = { optionsValue: '1,0', optionsText: '正确,错误' };

/** validationEx patterns the importer writes for REDCap validations, and their messages. */
const PATTERN_VALIDATIONS: Array<{ pattern: string; validation: string; message?: string }> = [
  { pattern: '^[A-Za-z]+$', validation: 'alpha_only' },
  { pattern: '^\\d{5}(-\\d{4})?$', validation: 'zipcode' },
  { pattern: '^[0-5]\\d:[0-5]\\d$', validation: 'time_mm_ss', message: '请按 分:秒 填写，如 05:30' },
  { pattern: '^\\d{10}$', validation: 'mrn_10d', message: '请输入10位病历号' },
];

/** Option fields a REDCap field has no place for, which are only about how the page looks. */
const DISPLAY_ONLY = ['width', 'cols', 'crfCols', 'rightItemText'] as const;
const REFERENCE_RANGE = ['refValueMaleMin', 'refValueMaleMax', 'refValueFemaleMin', 'refValueFemaleMax'] as const;
const RECOGNITION = ['identifyId', 'identifyType', 'identifyIndex'] as const;

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

  constructor(private readonly options: RedcapExportOptions) {
    // Reserved before any item is named, so an item called record_id is renamed instead.
    if (options.recordId) this.usedVariables.add(options.recordId);
  }

  write(definitions: readonly CrfDefinition[]): RedcapExport {
    const plans: FormPlan[] = definitions.map((definition, i) => ({
      definition,
      index: i,
      form: this.formName(definition, i),
      title: definition.title,
      nodes: definition.children,
    }));
    for (const plan of plans) this.forms.push({ form: plan.form, definition: plan.index, rows: null });
    for (const plan of plans) this.writeForm(plan);
    if (this.options.recordId && plans[0]) {
      this.rows.unshift(emptyRow(this.options.recordId, plans[0].form, 'text', 'Record ID'));
    } else this.ensureRecordId(plans[0]);
    const csv = [csvRow(REDCAP_COLUMNS), ...this.rows.map((row) => csvRow(REDCAP_FIELD_KEYS.map((k) => row[k])))].join(
      '\r\n',
    );
    return { csv: `${csv}\r\n`, issues: this.issues, rows: this.rows, sources: this.sources, forms: this.forms };
  }

  private warn(form: string, field: string | undefined, message: string) {
    this.issues.push({ severity: 'warning', form, field, message });
  }

  private formName(definition: CrfDefinition, index: number): string {
    // A form imported from REDCap keeps its name as its id; otherwise the title makes one.
    const fromId = typeof definition.id === 'string' && LEGAL_NAME.test(definition.id) ? definition.id : null;
    const base = fromId ?? legalName(definition.title.replace(/\s+/g, '_'), `form_${index + 1}`);
    const form = this.unique(base, this.usedForms);
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

  private writeForm(plan: FormPlan) {
    const { form, title } = plan;
    const names = new Map<string, string>();
    const items = new Map<string, CrfNode>();
    const columns = new Set<string>();
    const subforms: FormPlan[] = [];
    // Variables first (REDCap's are unique across the project), so logic can name them.
    const assign = (nodes: readonly CrfNode[], inRows: boolean) => {
      for (const node of nodes) {
        if (node.name && !names.has(node.name)) {
          items.set(node.name, node);
          if (inRows) columns.add(node.name);
          if (!isContainer(node.type) && !isRows(node.type)) {
            const variable = this.unique(legalName(node.name, `${form}_field`), this.usedVariables);
            names.set(node.name, variable);
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
            form: this.unique(`${form}_${legalName(node.name, 'rows')}`.slice(0, 100), this.usedForms),
            title,
            nodes: [node],
            parentOf: plan,
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

/**
 * A name not yet used in the project. REDCap reserves `redcap_…` and each form's `<form>_complete`
 * status field, so names of those shapes get a suffix too.
 */
function uniqueName(base: string, used: Set<string>): string {
  let stem = base;
  if (/^redcap_/.test(stem)) stem = `v_${stem}`.slice(0, 100);
  if (/_complete$/.test(stem)) stem = `${stem.slice(0, 97)}_v`;
  let name = stem;
  for (let n = 2; used.has(name); n += 1) name = `${stem.slice(0, 95)}_${n}`;
  used.add(name);
  return name;
}

const isContainer = (type: CrfNode['type']) => type === 'section' || type === 'group' || type === 'card';
const isRows = (type: CrfNode['type']) => type === 'listGroup' || type === 'table';

function emptyRow(variable: string, form: string, type: string, label: string): Row {
  return {
    variable,
    form,
    section: '',
    type,
    label,
    choices: '',
    note: '',
    validation: '',
    min: '',
    max: '',
    identifier: '',
    branching: '',
    required: '',
    alignment: '',
    questionNumber: '',
    matrixGroup: '',
    matrixRanking: '',
    annotation: '',
  };
}

/** One form's names, kinds and logic printing. */
class FormContext {
  private readonly kinds = new Map<string, RedcapFieldKind>();
  private readonly conditions = new Map<CrfNode, Cond>();

  constructor(
    readonly form: string,
    readonly title: string,
    readonly names: ReadonlyMap<string, string>,
    readonly items: ReadonlyMap<string, CrfNode>,
    /** List-group and table columns: fields of their own form, not readable as one value from outside. */
    private readonly columns: ReadonlySet<string>,
    private readonly inRows: boolean,
    readonly warn: (message: string, field?: string) => void,
    /** Notes where a written variable's value is kept. */
    readonly source: (variable: string, item: string | null) => void,
  ) {}

  /** The context of a list group's own form, where its columns are plain fields. */
  forForm(form: string, source: (variable: string, item: string | null) => void): FormContext {
    const context = new FormContext(form, this.title, this.names, this.items, this.columns, true, this.warn, source);
    for (const [name, kind] of this.kinds) context.kinds.set(name, kind);
    return context;
  }

  /** REDCap's reading of a blank, from the row the item exports as (the importer reads the same row). */
  setKind(name: string, row: Row) {
    this.kinds.set(name, redcapFieldKind(row));
  }

  logic(field: string | undefined): LogicContext {
    return {
      variable: (name) => (this.inRows || !this.columns.has(name) ? this.names.get(name) : undefined),
      kind: (name) => this.kinds.get(name) ?? kindOfNode(this.items.get(name)),
      isCheckbox: (name) => {
        const type = this.items.get(name)?.type;
        return type === 'checkbox' || type === 'multiSelect';
      },
      codes: (name) => choicesOf(this.items.get(name)?.option ?? {}).map((c) => c.value),
      approximated: (message) => this.warn(message, field),
    };
  }

  /** A node's own showIf and triggers as one REDCap condition; what cannot be printed is reported once. */
  conditionsOf(node: CrfNode): Cond {
    const known = this.conditions.get(node);
    if (known !== undefined) return known;
    const condition = this.printConditions(node);
    this.conditions.set(node, condition);
    return condition;
  }

  private printConditions(node: CrfNode): Cond {
    const parts: Cond[] = [];
    const { trig, trigex } = parseTriggers(node.option);
    if (trig) parts.push(this.trigger(trig, node));
    if (trigex.length > 0) parts.push(anyOf(trigex.map((t) => this.trigger(t, node))));
    if (node.option.showIf) {
      try {
        parts.push(redcapCondition(node.option.showIf, this.logic(node.name || undefined)));
      } catch (error) {
        if (!(error instanceof UnprintableError)) throw error;
        this.warn(
          `显示条件无法写成 REDCap 分支逻辑（${error.message}），未导出：${node.option.showIf}`,
          node.name || undefined,
        );
      }
    }
    return allOf(parts);
  }

  /** trig/tindex: the chosen option has one of the indexes, i.e. its code is one of theirs. */
  private trigger(trigger: Trigger, node: CrfNode): Cond {
    const source = this.items.get(trigger.name);
    const variable = this.names.get(trigger.name);
    if (!source || !variable) {
      this.warn(`触发题目 ${trigger.name} 在 REDCap 中没有对应字段，触发条件未导出`, node.name || undefined);
      return true;
    }
    const choices = choicesOf(source.option);
    const codes = trigger.indexes.flatMap((i) => (choices[i] ? [choices[i].value] : []));
    const box = source.type === 'checkbox' || source.type === 'multiSelect';
    return anyOf(
      codes.map((code) =>
        box ? redcapAtom(`[${variable}(${code})]`, '=', '1') : redcapAtom(`[${variable}]`, '=', code),
      ),
    );
  }
}

/** Before its row exists: the same reading from our type. */
function kindOfNode(node: CrfNode | undefined): RedcapFieldKind {
  if (!node) return 'text';
  if (node.option.calc || NUMBER_TYPES.has(node.type)) return 'number';
  if (node.type === 'radio' || node.type === 'select') {
    const codes = choicesOf(node.option).map((c) => c.value);
    return codes.length > 0 && codes.every((c) => /^-?\d+(\.\d+)?$/.test(c)) ? 'number' : 'text';
  }
  return 'text';
}
const NUMBER_TYPES = new Set<CrfNode['type']>([
  'int',
  'real',
  'number',
  'slider',
  'fileUpload',
  'imageUpload',
  'videoUpload',
]);

interface Scope {
  /**
   * Containers above whose conditions the item takes on (a REDCap field has no parent to inherit them
   * from), printed once every row's kind is known; or a condition already printed.
   */
  conditions: Array<CrfNode | Cond>;
  /** The section the items belong to. */
  section: { node: CrfNode; title: string } | null;
  hidden: boolean;
  notDisplayed: boolean;
}

/** Writes one REDCap form's rows from our tree, in display order. */
class FormWalker {
  /** The section whose header the last written row is under. */
  private current: CrfNode | null = null;
  private readonly started = new Set<CrfNode>();
  private readonly misplaced = new Set<CrfNode | null>();
  private descriptiveCount = 0;
  /** Rows in order; `logic` is false for a row written for another item's part (an addition box). */
  private readonly pending: Array<{ row: Row; node: CrfNode; scope: Scope; logic: boolean }> = [];

  constructor(
    private readonly ctx: FormContext,
    private readonly rules: ReadonlyMap<string, string>,
    private readonly out: Row[],
    private readonly usedVariables: Set<string>,
    private readonly usedMatrices: Set<string>,
  ) {}

  walk(nodes: readonly CrfNode[], scope: Scope) {
    for (const node of nodes) this.node(node, scope);
  }

  private node(node: CrfNode, scope: Scope) {
    const ctx = this.ctx;
    const inner: Scope = {
      ...scope,
      hidden: scope.hidden || isOn(node.option.hidden),
      notDisplayed: scope.notDisplayed || isOn(node.option.notDisplayed),
    };
    const { role } = itemTypeOf(node.type);
    if (node.type === 'section') {
      this.reportDropped(node, ['showIf', 'trig', 'tindex', 'trigex', 'hidden', 'notDisplayed', 'crfCols']);
      if (!node.title.trim()) {
        ctx.warn('分区没有标题，REDCap 的分区标题不能为空：其题目并入上一分区', node.name || undefined);
      }
      this.walk(node.children, {
        ...inner,
        conditions: [...scope.conditions, node],
        section: node.title.trim() ? { node, title: node.title } : scope.section,
      });
      if (node.children.length === 0) ctx.warn(`分区“${node.title}”没有题目，REDCap 的分区标题附在字段上，未导出`);
      return;
    }
    if (role === 'container') {
      this.reportDropped(node, ['showIf', 'trig', 'tindex', 'trigex', 'hidden', 'notDisplayed', 'showStyle']);
      const matrix = this.matrixName(node);
      if (!matrix && node.title.trim()) {
        ctx.warn(
          `${itemTypeOf(node.type).label}“${node.title}”在 REDCap 中没有对应，已展开为其中的题目（显示条件并入各题）`,
          node.name || undefined,
        );
      }
      const before = this.pending.length;
      this.walk(node.children, { ...inner, conditions: [...scope.conditions, node] });
      if (matrix) for (const p of this.pending.slice(before)) p.row.matrixGroup = matrix;
      return;
    }
    // A list group or table is written by the exporter as a form of its own.
    if (role !== 'rows') this.item(node, inner);
  }

  /** A group shown as a table whose items are radios (or checkboxes) with the same choices is a REDCap matrix. */
  private matrixName(node: CrfNode): string | null {
    if (node.option.showStyle !== 'table' || node.children.length === 0) return null;
    const [first] = node.children;
    const same = node.children.every(
      (c) =>
        (c.type === 'radio' || c.type === 'checkbox') &&
        c.type === first!.type &&
        c.option.optionsValue === first!.option.optionsValue &&
        c.option.optionsText === first!.option.optionsText &&
        c.children.length === 0 &&
        !c.option.calc,
    );
    if (!same) return null;
    const name = legalName(node.name, 'matrix');
    let unique = name;
    for (let n = 2; this.usedMatrices.has(unique); n += 1) unique = `${name}_${n}`;
    this.usedMatrices.add(unique);
    if (node.title && node.title !== node.name) {
      this.ctx.warn(`矩阵“${node.title}”的标题未导出（REDCap 的矩阵标题用分区标题）`, node.name);
    }
    return unique;
  }

  private reportDropped(node: CrfNode, handled: readonly string[]) {
    const dropped = Object.keys(node.option).filter((k) => !handled.includes(k) && node.option[k] !== undefined);
    if (dropped.length > 0) {
      this.ctx.warn(`选项 ${dropped.join(', ')} 在 REDCap 中没有对应，未导出`, node.name || undefined);
    }
  }

  private item(node: CrfNode, scope: Scope) {
    const ctx = this.ctx;
    const name = node.name ? ctx.names.get(node.name) : undefined;
    const variable = name ?? this.descriptiveName(node);
    const row = emptyRow(variable, ctx.form, 'text', html(node.title));
    const handled = new Set<string>();
    const use = (...keys: string[]) => keys.forEach((k) => handled.add(k));
    const o = node.option;
    const field = node.name || undefined;
    const warn = (message: string) => ctx.warn(message, field);
    const tags: string[] = [];

    // Type, choices and validation, by the shape the item type's registration gives.
    const { redcap } = itemTypeOf(node.type);
    switch (redcap.shape) {
      case 'title':
        row.type = 'descriptive';
        if (o.showStyle && o.showStyle.includes(':')) {
          row.label = `<div style="${html(o.showStyle).replace(/"/g, '&quot;')}">${row.label}</div>`;
        }
        use('showStyle');
        break;
      case 'link':
        row.type = 'descriptive';
        row.label = `<a href="${html(o.url ?? '').replace(/"/g, '&quot;')}" target="_blank">${row.label}</a>`;
        use('url');
        break;
      case 'choice': {
        use('optionsValue', 'optionsText');
        const same = (a: { optionsValue: string; optionsText: string }) =>
          o.optionsValue?.replace(/\s/g, '') === a.optionsValue && o.optionsText?.replace(/\s/g, '') === a.optionsText;
        const single = itemTypeOf(node.type).exportKind(node) === 'choice';
        if (node.type === 'radio' && same(YES_NO)) row.type = 'yesno';
        else if (node.type === 'radio' && same(TRUE_FALSE)) row.type = 'truefalse';
        else {
          row.type = !single ? 'checkbox' : node.type === 'radio' ? 'radio' : 'dropdown';
          const bad = choicesOf(o).filter((c) => !/^[A-Za-z0-9_.-]+$/.test(c.value));
          if (bad.length > 0) {
            warn(
              `选项代码 ${bad.map((c) => c.value).join(', ')} 含有 REDCap 不接受的字符（只能用字母、数字、下划线、点和减号）`,
            );
          }
          row.choices = choicesOf(o)
            .map((c) => `${c.value}, ${choiceLabel(c.text)}`)
            .join(' | ');
        }
        break;
      }
      case 'slider': {
        row.type = 'slider';
        row.validation = 'number';
        use('valueMin', 'valueMax', 'valueStep');
        const min = toNumber(o.valueMin);
        const max = toNumber(o.valueMax);
        if (min !== null) row.min = String(min);
        if (max !== null) row.max = String(max);
        const step = toNumber(o.valueStep);
        if (step !== null && step !== 1) warn(`REDCap 的滑块步长固定为 1，步长 ${step} 未导出`);
        break;
      }
      case 'notes':
        row.type = 'notes';
        this.textValidation(node, row, tags, use);
        break;
      case 'text':
        this.textValidation(node, row, tags, use);
        break;
      case 'json':
        row.type = 'notes';
        break;
      case 'file':
        row.type = 'file';
        break;
      case 'integer':
        row.validation = 'integer';
        break;
      case 'decimal': {
        use('validate');
        const precision = toNumber(o.validate?.precision);
        if (precision !== null && precision >= 1 && precision <= 4 && Number.isInteger(precision)) {
          row.validation = `number_${precision}dp`;
        } else {
          row.validation = 'number';
          if (precision !== null) warn(`REDCap 只有 1 到 4 位小数的校验，小数位数 ${precision} 未导出`);
        }
        break;
      }
      case 'date':
        use('itemType', 'format');
        row.validation = o.itemType === 'datetime' ? 'datetime_seconds_ymd' : 'date_ymd';
        break;
      case 'datetime':
        use('format');
        row.validation = o.format === 'yyyy-MM-dd HH:mm' ? 'datetime_ymd' : 'datetime_seconds_ymd';
        break;
      case 'time':
        use('format');
        row.validation = o.format === 'Hour' ? 'time' : 'time_hh_mm_ss';
        break;
      case 'structure':
        break;
    }
    const typeWarning = redcap.warning?.(node);
    if (typeWarning) warn(typeWarning);

    // Calculations: ours (calc, or a crfRule aimed at the item) become a REDCap calc field.
    const formula = o.calc ?? this.rules.get(node.name);
    use('calc');
    if (formula) this.calculation(node, formula, row, tags);
    else if (o.format && (redcap.shape === 'integer' || redcap.shape === 'decimal')) {
      ctx.warn(`转换规则 ${o.format} 在 REDCap 中没有对应，未导出`, field);
    }
    use('format');

    // Bounds: the importer's warning checks, or our hard bounds (REDCap's are soft).
    this.bounds(node, row, use);

    // Labels, notes, flags.
    const notes: string[] = [];
    if (o.description) notes.push(html(o.description));
    const units = unitsOf(o);
    if (units.length > 0) {
      notes.push(`单位：${html(units.join('/'))}`);
      warn(`REDCap 没有单位设置，单位 ${units.join('/')} 写入字段注释（Field Note）`);
    }
    row.note = notes.join('；');
    if (isOn(o.required)) row.required = 'y';
    if (isOn(o.identifier)) row.identifier = 'y';
    if (o.itemLayout === 'horizontal') row.alignment = 'RH';
    else if (o.itemLayout === 'vertical') row.alignment = 'RV';
    else if (o.itemLayout) warn(`布局 ${o.itemLayout} 在 REDCap 中没有对应，未导出`);
    use('description', 'units', 'required', 'identifier', 'itemLayout', 'title');

    // Action tags.
    if (scope.notDisplayed || isOn(o.notDisplayed)) tags.push('@HIDDEN');
    if (scope.hidden || isOn(o.hidden)) {
      if (!tags.includes('@HIDDEN')) tags.push('@HIDDEN');
      warn('“隐藏”（不适用、清空值）导出为 REDCap 的 @HIDDEN：REDCap 只是不显示，值仍保存');
    }
    if (isOn(o.readOnly) && row.type !== 'calc' && !tags.some((t) => t.startsWith('@CALC'))) tags.push('@READONLY');
    if (o.defaultValue !== undefined && o.defaultValue !== '') this.defaultValue(node, row, tags);
    if (o.placeholder) this.quotedTag('@PLACEHOLDER', o.placeholder, tags, warn);
    use('notDisplayed', 'hidden', 'readOnly', 'defaultValue', 'placeholder');
    row.annotation = tags.join(' ');

    // Logic: the item's own conditions under its containers'.
    use('showIf', 'trig', 'tindex', 'trigex');
    this.pending.push({ row, node, scope, logic: true });
    ctx.source(variable, row.type === 'descriptive' ? null : node.name || null);

    // The supplementary text box of a choice item, its own field in REDCap.
    use('addition', 'additionIndex');
    if (o.addition !== undefined && node.name) this.addition(node, row, scope);

    this.reportOthers(node, handled);
  }

  private descriptiveName(node: CrfNode): string {
    this.descriptiveCount += 1;
    const name = uniqueName(`${this.ctx.form}_desc_${this.descriptiveCount}`.slice(0, 100), this.usedVariables);
    this.ctx.warn(
      `${node.type === 'link' ? '链接' : '标题'}没有名称，REDCap 的说明字段需要变量名：命名为 ${name}`,
      undefined,
    );
    return name;
  }

  private textValidation(node: CrfNode, row: Row, tags: string[], use: (...keys: string[]) => void) {
    const o = node.option;
    const warn = (message: string) => this.ctx.warn(message, node.name || undefined);
    use('validate', 'validationEx', 'validationErrorMsg', 'format');
    const type = o.validate?.type;
    if (type === 'email') row.validation = 'email';
    else if (type === 'phone') {
      row.validation = 'phone';
      warn('REDCap 的 phone 校验是北美号码格式，中国大陆手机号会被拒绝：请在 REDCap 中改为无校验或自定义校验');
    } else if (type === 'int') row.validation = 'integer';
    else if (type === 'float') row.validation = 'number';
    else if (type === 'idcard') warn('REDCap 没有身份证号校验，导出为无校验文本');
    if (o.validationEx) {
      const known = PATTERN_VALIDATIONS.find((p) => p.pattern === o.validationEx);
      if (known && !row.validation) {
        row.validation = known.validation;
        if (o.validationErrorMsg && o.validationErrorMsg !== known.message) {
          warn(`错误提示“${o.validationErrorMsg}”未导出（REDCap 用它自己的提示）`);
        }
      } else warn(`REDCap 数据字典不能写自定义正则校验，${o.validationEx} 未导出`);
    } else if (o.validationErrorMsg) warn(`错误提示“${o.validationErrorMsg}”未导出（REDCap 用它自己的提示）`);
    const max = toNumber(o.validate?.max);
    const min = toNumber(o.validate?.min);
    if (max !== null) tags.push(`@CHARLIMIT=${max}`);
    if (min !== null) warn(`REDCap 没有最少字数的设置，最少 ${min} 个字符未导出`);
    if (o.format) warn(`输入格式 ${o.format} 在 REDCap 中没有对应，未导出`);
  }

  private calculation(node: CrfNode, formula: string, row: Row, tags: string[]) {
    const warn = (message: string) => this.ctx.warn(message, node.name || undefined);
    let text: string;
    try {
      text = redcapCalculation(formula, this.ctx.logic(node.name || undefined));
    } catch (error) {
      if (!(error instanceof UnprintableError)) throw error;
      warn(`计算公式无法写成 REDCap 的计算（${error.message}），导出为只读字段：${formula}`);
      tags.push('@READONLY');
      return;
    }
    const numeric = node.type === 'int' || node.type === 'real' || node.type === 'number' || node.type === 'slider';
    if (!numeric) {
      // A calculated text: REDCap's @CALCTEXT on a text field.
      tags.push(`@CALCTEXT(${text})`);
      row.type = node.type === 'textarea' ? 'notes' : 'text';
      if (node.type !== 'input' && node.type !== 'text' && node.type !== 'textarea') {
        warn(`计算的${node.type}题导出为 REDCap 的 @CALCTEXT 文本字段`);
      }
      return;
    }
    const format = node.option.format;
    if (format) {
      try {
        const rule = parseConverterRule(format);
        if (rule.kind === 'precision') {
          const fn = rule.mode === 'R' ? 'round' : rule.mode === 'U' ? 'roundup' : 'rounddown';
          text = `${fn}(${text}, ${rule.digits})`;
        } else warn(`转换规则 ${format} 在 REDCap 中没有对应，未导出`);
      } catch {
        warn(`转换规则 ${format} 无法读取，未导出`);
      }
    }
    row.type = 'calc';
    row.validation = '';
    row.choices = text;
  }

  private bounds(node: CrfNode, row: Row, use: (...keys: string[]) => void) {
    const o = node.option;
    const warn = (message: string) => this.ctx.warn(message, node.name || undefined);
    use('checks', 'showStyle', 'validate');
    const numeric = row.validation === 'integer' || row.validation.startsWith('number');
    const dated = /^(date|datetime)/.test(row.validation);
    const left: CrossCheck[] = [];
    for (const check of o.checks ?? []) {
      const bound = (numeric || dated) && row.type === 'text' ? readBound(node.name, check, dated) : null;
      if (bound && !row[bound.side]) {
        row[bound.side] = bound.value;
        if (check.severity === 'error') {
          warn(`核查“${check.message}”导出为 REDCap 的范围 ${bound.value}：REDCap 的范围只提示、不阻止保存`);
        } else if (check.message !== bound.message) {
          warn(`核查提示“${check.message}”未导出（REDCap 用它自己的范围提示）`);
        }
      } else left.push(check);
    }
    for (const check of left) {
      warn(
        `REDCap 数据字典不能写跨题核查，${check.severity === 'warning' ? '警告' : '核查'}“${check.message}”（${check.expression}）未导出（可在 REDCap 的数据质量规则中手工设置）`,
      );
    }
    if (numeric && row.type === 'text') {
      for (const side of ['min', 'max'] as const) {
        const value = toNumber(o.validate?.[side]);
        if (value === null) continue;
        if (row[side]) {
          warn(`范围 ${side} ${value} 与核查给出的范围并存，导出核查的范围`);
          continue;
        }
        row[side] = String(value);
        warn(`${side === 'min' ? '最小值' : '最大值'} ${value} 导出为 REDCap 的范围：REDCap 的范围只提示、不阻止保存`);
      }
    } else if (row.type === 'slider' || row.type === 'calc') {
      for (const side of ['min', 'max'] as const) {
        if (toNumber(o.validate?.[side]) !== null) {
          warn(`范围 ${side} 在 REDCap 的${row.type === 'calc' ? '计算' : '滑块'}字段上没有对应，未导出`);
        }
      }
    }
    if (dated && (o.showStyle === 'pastTime' || o.showStyle === 'futureTime')) {
      const side = o.showStyle === 'pastTime' ? 'max' : 'min';
      if (!row[side]) row[side] = 'today';
      warn(
        `${o.showStyle === 'pastTime' ? '不能晚于今天' : '不能早于今天'}导出为 REDCap 的范围 ${side} = today：REDCap 只提示、不阻止保存`,
      );
    } else if (o.showStyle && node.type !== 'title') warn(`显示样式 ${o.showStyle} 在 REDCap 中没有对应，未导出`);
  }

  private defaultValue(node: CrfNode, row: Row, tags: string[]) {
    const value = String(node.option.defaultValue);
    if (value.toLowerCase() === 'now') {
      const dateOnly = row.validation.startsWith('date_') || node.type === 'partialDate';
      tags.push(dateOnly ? '@TODAY' : '@NOW');
      return;
    }
    this.quotedTag('@DEFAULT', value, tags, (message) => this.ctx.warn(message, node.name || undefined));
  }

  private quotedTag(tag: string, value: string, tags: string[], warn: (message: string) => void) {
    try {
      tags.push(`${tag}=${quoteRedcap(value)}`);
    } catch (error) {
      if (!(error instanceof UnprintableError)) throw error;
      warn(`${tag} 未导出：${error.message}`);
    }
  }

  private addition(node: CrfNode, row: Row, scope: Scope) {
    const ctx = this.ctx;
    const variable = uniqueName(legalName(`${row.variable}_addition`, `${row.variable}_other`), this.usedVariables);
    const extra = emptyRow(variable, ctx.form, 'text', html(node.option.addition || '请注明'));
    // The text typed beside an identifier is as identifying as the item.
    if (isOn(node.option.identifier)) extra.identifier = 'y';
    ctx.source(variable, additionKey(node.name));
    const choices = choicesOf(node.option);
    const indexes = String(node.option.additionIndex ?? '')
      .split(',')
      .flatMap((s) => (/^\d+$/.test(s.trim()) ? [Number(s.trim())] : []));
    const box = node.type === 'checkbox' || node.type === 'multiSelect';
    const when = anyOf(
      indexes.flatMap((i) => {
        const code = choices[i]?.value;
        if (code === undefined) return [];
        return [box ? redcapAtom(`[${row.variable}(${code})]`, '=', '1') : redcapAtom(`[${row.variable}]`, '=', code)];
      }),
    );
    // Shown while its item shows and one of the options is chosen.
    this.pending.push({
      row: extra,
      node,
      scope: { ...scope, conditions: [...scope.conditions, node, when] },
      logic: false,
    });
    ctx.warn(`附加项“${node.option.addition}”导出为单独的文本字段 ${variable}，在选中对应选项时显示`, node.name);
  }

  private reportOthers(node: CrfNode, handled: Set<string>) {
    const o = node.option as Record<string, unknown>;
    const present = (k: string) => o[k] !== undefined && o[k] !== '' && !handled.has(k);
    const display = DISPLAY_ONLY.filter(present);
    if (display.length > 0) {
      this.ctx.warn(`显示设置 ${display.join(', ')} 在 REDCap 中没有对应，未导出`, node.name || undefined);
    }
    const ranges = REFERENCE_RANGE.filter(present);
    if (ranges.length > 0) this.ctx.warn('REDCap 没有参考范围，参考范围未导出', node.name || undefined);
    const recognition = RECOGNITION.filter(present);
    if (recognition.length > 0) {
      this.ctx.warn(`识别设置 ${recognition.join(', ')} 在 REDCap 中没有对应，未导出`, node.name || undefined);
    }
    const known = new Set<string>([...DISPLAY_ONLY, ...REFERENCE_RANGE, ...RECOGNITION]);
    const others = Object.keys(o).filter((k) => present(k) && !known.has(k));
    if (others.length > 0) {
      const unknown = others.filter((k) => !KNOWN_OPTION_KEYS.has(k));
      const lost = others.filter((k) => KNOWN_OPTION_KEYS.has(k));
      if (lost.length > 0) {
        this.ctx.warn(`选项 ${lost.join(', ')} 在 REDCap 中没有对应，未导出`, node.name || undefined);
      }
      if (unknown.length > 0) this.ctx.warn(`自定义选项 ${unknown.join(', ')} 未导出`, node.name || undefined);
    }
  }

  /** Branching logic and section headers, once every row of the form is known (kinds come from rows). */
  finish() {
    for (const { row, node, logic } of this.pending) if (logic && node.name) this.ctx.setKind(node.name, row);
    for (const { row, node, scope, logic } of this.pending) {
      const own = logic ? this.ctx.conditionsOf(node) : true;
      const inherited = scope.conditions.map((c) =>
        typeof c === 'object' && 'children' in c ? this.ctx.conditionsOf(c) : c,
      );
      row.branching = condText(allOf([...inherited, own]));
      this.placeSection(row, node, scope);
      this.out.push(row);
    }
    this.pending.length = 0;
  }

  private placeSection(row: Row, node: CrfNode, scope: Scope) {
    const section = scope.section?.node ?? null;
    if (section === this.current) return;
    if (section && (!this.started.has(section) || this.current !== section)) {
      row.section = html(scope.section!.title);
      this.started.add(section);
      this.current = section;
      return;
    }
    if (!this.misplaced.has(section)) {
      this.misplaced.add(section);
      this.ctx.warn(
        `题目“${node.title}”不在分区中，但在分区之后：REDCap 的分区延续到下一个分区标题，它在 REDCap 中显示在上一分区之下`,
        node.name || undefined,
      );
    }
  }
}

/** A bound the importer made from REDCap's min/max: `x >= 20` (不能小于20), `d <= today()`. */
function readBound(
  name: string,
  check: CrossCheck,
  dated: boolean,
): { side: 'min' | 'max'; value: string; message: string } | null {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`^\\s*${escaped}\\s*(>=|<=)\\s*(.+?)\\s*$`).exec(check.expression);
  if (!m) return null;
  const side = m[1] === '>=' ? 'min' : 'max';
  const raw = m[2]!;
  if (dated) {
    const fn = /^(today|now)\(\)$/.exec(raw);
    const quoted = /^"(\d{4}-\d{2}-\d{2}(?: \d{2}:\d{2}(?::\d{2})?)?)"$/.exec(raw);
    const value = fn ? fn[1]! : quoted ? quoted[1]! : null;
    if (value === null) return null;
    return { side, value, message: `${side === 'min' ? '不能早于' : '不能晚于'} ${value}` };
  }
  const n = toNumber(raw);
  if (n === null) return null;
  return { side, value: String(n), message: side === 'min' ? CRF_MSG.belowMin(n) : CRF_MSG.aboveMax(n) };
}
