import type { CrfNode } from '../crf-definition.schema.js';
import { choicesOf } from '../options.js';
import { parseTriggers, type Trigger } from '../visibility.js';
import { redcapFieldKind, type RedcapFieldKind } from './redcap-logic.js';
import {
  allOf,
  anyOf,
  redcapAtom,
  redcapCondition,
  UnprintableError,
  type Cond,
  type LogicContext,
} from './redcap-logic-export.js';
import type { Row } from './redcap-export-rows.js';
import { redcapChoiceCodes, toRedcapCode } from './redcap-values.js';

/** One form's names, kinds and logic printing. */
export class FormContext {
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
      codes: (name) => {
        const node = this.items.get(name);
        return node ? redcapChoiceCodes(node).map((c) => c.redcap) : [];
      },
      code: (name, code) => {
        const node = this.items.get(name);
        return node ? toRedcapCode(node, code) : code;
      },
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
    const choices = redcapChoiceCodes(source);
    const codes = trigger.indexes.flatMap((i) => (choices[i] ? [choices[i].redcap] : []));
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
