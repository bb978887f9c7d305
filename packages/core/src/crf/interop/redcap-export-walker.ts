import type { CrfNode } from '../crf-definition.schema.js';
import { isOn, toNumber, unitsOf } from '../options.js';
import { additionKey } from '../evaluate-form.js';
import { isIdentifierItem } from '../identifier-mask.js';
import { itemTypeOf } from '../item-types/registry.js';
import { dateFormatOf } from '../partial-date.js';
import { allOf, anyOf, condText, redcapAtom, type Cond } from './redcap-logic-export.js';
import type { FormContext } from './redcap-export-context.js';
import { choiceLabel, emptyRow, html, legalName, uniqueName, type Row } from './redcap-export-rows.js';
import { PHONE_NOTE } from './redcap-ecrf-tags.js';
import { redcapChoiceCodes } from './redcap-values.js';
import {
  bounds,
  calculation,
  defaultValue,
  quotedTag,
  reportOthers,
  textValidation,
} from './redcap-export-settings.js';

const YES_NO = { optionsValue: '1,0', optionsText: '是,否' };
const TRUE_FALSE = { optionsValue: '1,0', optionsText: '正确,错误' };

export interface Scope {
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
export class FormWalker {
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
    const notes: string[] = [];

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
          const codes = redcapChoiceCodes(node);
          const renamed = codes.filter((c) => c.redcap !== c.code);
          if (renamed.length > 0) {
            warn(
              `选项代码 ${renamed.map((c) => c.code).join(', ')} 含有 REDCap 不接受的字符（只能用字母、数字、下划线、点和减号）：导出为 ${renamed.map((c) => c.redcap).join(', ')}（对照见数据导出的 choice_codes.csv）`,
            );
          }
          row.choices = codes.map((c) => `${c.redcap}, ${choiceLabel(c.text)}`).join(' | ');
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
        textValidation(ctx, node, row, tags, use);
        break;
      case 'text':
        textValidation(ctx, node, row, tags, use);
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
      case 'datetime': {
        use('itemType', 'format', 'dateOrder');
        const validation = dateValidation(node);
        if (validation) row.validation = validation;
        else notes.push(`日期：${dateFormatOf(node)}，未知部分写 UK`);
        break;
      }
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
    if (formula) calculation(ctx, node, formula, row, tags);
    else if (o.format && (redcap.shape === 'integer' || redcap.shape === 'decimal')) {
      ctx.warn(`转换规则 ${o.format} 在 REDCap 中没有对应，未导出`, field);
    }
    use('format');

    // Bounds: the importer's warning checks, or our hard bounds (REDCap's are soft).
    bounds(ctx, node, row, use);

    // Labels, notes, flags.
    if (o.description) notes.push(html(o.description));
    const units = unitsOf(o);
    if (units.length > 0) {
      notes.push(`单位：${html(units.join('/'))}`);
      warn(`REDCap 没有单位设置，单位 ${units.join('/')} 写入字段注释（Field Note）`);
    }
    if (o.validate?.type === 'phone') notes.push(PHONE_NOTE);
    row.note = notes.join('；');
    if (isOn(o.required)) row.required = 'y';
    // The patient's own identifiers (出生日期 filled from the patient's birth date) are identifiers here too.
    if (isIdentifierItem(node)) row.identifier = 'y';
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
    if (o.defaultValue !== undefined && o.defaultValue !== '') defaultValue(ctx, node, row, tags);
    if (o.placeholder) quotedTag('@PLACEHOLDER', o.placeholder, tags, warn);
    use('notDisplayed', 'hidden', 'readOnly', 'defaultValue', 'placeholder');
    row.annotation = tags.join(' ');

    // Logic: the item's own conditions under its containers'.
    use('showIf', 'trig', 'tindex', 'trigex');
    this.pending.push({ row, node, scope, logic: true });
    ctx.source(variable, row.type === 'descriptive' ? null : node.name || null);

    // The supplementary text box of a choice item, its own field in REDCap.
    use('addition', 'additionIndex');
    if (o.addition !== undefined && node.name) this.addition(node, row, scope);

    reportOthers(ctx, node, handled);
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

  private addition(node: CrfNode, row: Row, scope: Scope) {
    const ctx = this.ctx;
    const variable = uniqueName(legalName(`${row.variable}_addition`, `${row.variable}_other`), this.usedVariables);
    const extra = emptyRow(variable, ctx.form, 'text', html(node.option.addition || '请注明'));
    // The text typed beside an identifier is as identifying as the item.
    if (isIdentifierItem(node)) extra.identifier = 'y';
    ctx.source(variable, additionKey(node.name));
    const choices = redcapChoiceCodes(node);
    const indexes = String(node.option.additionIndex ?? '')
      .split(',')
      .flatMap((s) => (/^\d+$/.test(s.trim()) ? [Number(s.trim())] : []));
    const box = node.type === 'checkbox' || node.type === 'multiSelect';
    const when = anyOf(
      indexes.flatMap((i) => {
        const code = choices[i]?.redcap;
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

/**
 * REDCap's validation for a date item, by its format (dateOrder: the order REDCap shows it in, kept from a REDCap
 * dictionary); null when REDCap has none: a date that may be partly unknown (下拉日期), or a format without the
 * day or with the hour only, which REDCap holds as plain text.
 */
function dateValidation(node: CrfNode): string | null {
  if (node.type === 'partialDate') return null;
  const order = node.option.dateOrder === 'dmy' || node.option.dateOrder === 'mdy' ? node.option.dateOrder : 'ymd';
  const format = dateFormatOf(node);
  if (format === 'yyyy-MM-dd') return `date_${order}`;
  if (format === 'yyyy-MM-dd HH:mm') return `datetime_${order}`;
  if (format === 'yyyy-MM-dd HH:mm:ss') return `datetime_seconds_${order}`;
  return null;
}
