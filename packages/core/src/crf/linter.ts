import { z } from 'zod';
import { compileForm, type DefinitionIssue } from './compile-form.js';
import {
  canHaveChildren,
  crfDefinitionSchema,
  isChoiceType,
  isDateType,
  isRowType,
  isValueType,
  KNOWN_OPTION_KEYS,
  type CrfDefinition,
  type CrfNode,
} from './crf-definition.schema.js';
import { compilePattern } from './field-rules.js';
import { isIdentifierItem } from './identifier-mask.js';
import { sliderRange } from './layout.js';
import { choicesOf, indexList, splitList, toNumber, unitsOf } from './options.js';
import { isDateFormat, isValidPartialDate, dateFormatOf } from './partial-date.js';
import { patientFieldProblem } from './patient-prefill.js';
import { hasReferenceRange } from './reference-range.js';
import { unitFactor, unitInfo } from './units.js';
import { parseConverterRule, ValueConversionError } from './value-converter.js';

export interface LintResult {
  /** True when there is no error: only then may the definition be stored. */
  ok: boolean;
  /** The parsed definition when ok; a CRF with an error is refused whole, never half-loaded. */
  definition: CrfDefinition | null;
  errors: DefinitionIssue[];
  warnings: DefinitionIssue[];
}

// Schema messages in Chinese for the data managers who upload definitions, without touching zod's global config.
const zhCN = z.locales.zhCN();
const NAME = /^[\p{L}_][\p{L}\p{N}_]*$/u;
const SHOW_STYLES = new Set(['tag', 'pop', 'display', 'open', 'form', 'list', 'table', 'pastTime', 'futureTime']);
const NUMERIC_OPTIONS = [
  'width',
  'cols',
  'crfCols',
  'valueMin',
  'valueMax',
  'valueStep',
  'refValueMaleMin',
  'refValueMaleMax',
  'refValueFemaleMin',
  'refValueFemaleMax',
  'molarMass',
] as const;

function zodPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += `${out ? '.' : ''}${String(part)}`;
  }
  return out || '(根)';
}

function nameAt(input: unknown, path: readonly PropertyKey[]): string | undefined {
  let current: unknown = input;
  let name: string | undefined;
  for (const part of path) {
    if (current === null || typeof current !== 'object') break;
    current = (current as Record<PropertyKey, unknown>)[part as string];
    if (current && typeof current === 'object' && typeof (current as { name?: unknown }).name === 'string') {
      name = (current as { name: string }).name || name;
    }
  }
  return name;
}

function schemaIssues(input: unknown, error: z.ZodError): DefinitionIssue[] {
  return error.issues.map((issue) => {
    return { severity: 'error', path: zodPath(issue.path), name: nameAt(input, issue.path), message: issue.message };
  });
}

/**
 * The definition linter run at upload: schema, names, structure, option fields, triggers,
 * expressions, calculation cycles. Messages say what is wrong and where (the node path and name).
 */
export function lintDefinition(input: unknown): LintResult {
  const parsed = crfDefinitionSchema.safeParse(input, { error: zhCN.localeError });
  if (!parsed.success) {
    return { ok: false, definition: null, errors: schemaIssues(input, parsed.error), warnings: [] };
  }
  const definition = parsed.data;
  const issues: DefinitionIssue[] = [];
  const walk = (node: CrfNode, path: string, inRows: boolean) => {
    lintNode(node, path, issues);
    const prefill = patientFieldProblem(node, inRows);
    if (prefill) {
      issues.push({
        severity: 'error',
        path: `${path}.option.patientField`,
        name: node.name || undefined,
        message: prefill,
      });
    }
    const rows = inRows || isRowType(node.type);
    node.children.forEach((child, i) => walk(child, `${path}.children[${i}]`, rows));
  };
  definition.children.forEach((child, i) => walk(child, `children[${i}]`, false));
  const compiled = compileForm(definition);
  issues.push(...compiled.issues);
  // A value calculated from an identifier can identify as well: masked only when flagged itself.
  for (const info of compiled.nodes) {
    if (!info.calc || isIdentifierItem(info.node)) continue;
    const read = info.calc.dependencies.filter((dep) => {
      const source = compiled.byName.get(dep)?.node;
      return source !== undefined && isIdentifierItem(source);
    });
    if (read.length > 0) {
      issues.push({
        severity: 'warning',
        path: `${info.path}.option.calc`,
        name: info.node.name || undefined,
        message: `计算读取身份标识字段 ${read.join('、')}：结果也可能识别患者，请同样标记 identifier`,
      });
    }
  }
  const errors = issues.filter((i) => i.severity === 'error');
  const warnings = issues.filter((i) => i.severity === 'warning');
  return { ok: errors.length === 0, definition: errors.length === 0 ? definition : null, errors, warnings };
}

function lintNode(node: CrfNode, path: string, issues: DefinitionIssue[]) {
  const name = node.name || undefined;
  const option = node.option;
  const error = (field: string, message: string) =>
    issues.push({ severity: 'error', path: field ? `${path}.${field}` : path, name, message });
  const warn = (field: string, message: string) =>
    issues.push({ severity: 'warning', path: field ? `${path}.${field}` : path, name, message });

  if (isValueType(node.type) && !node.name) error('name', '题目缺少名称（name）');
  if (node.name && !NAME.test(node.name)) {
    error('name', `题目名称只能由字母、数字、下划线组成且不能以数字开头：${node.name}`);
  }
  if (isValueType(node.type) && !node.title && !option.title) warn('title', '题目缺少标题');
  if (node.children.length > 0 && !canHaveChildren(node.type)) {
    error('children', `${node.type} 类型的题目不能包含子题目`);
  }
  if (isRowType(node.type) && node.children.length === 0) {
    error('children', `${node.type === 'table' ? '表格' : '列表组'}至少需要一列`);
  }

  for (const key of Object.keys(option)) {
    if (!KNOWN_OPTION_KEYS.has(key)) warn(`option.${key}`, `未知的选项字段 ${key}，将原样保留`);
  }
  for (const key of NUMERIC_OPTIONS) {
    const v = option[key];
    if (v !== undefined && v !== '' && toNumber(v) === null) error(`option.${key}`, `${key} 必须是数字：${String(v)}`);
  }
  for (const key of ['min', 'max', 'precision'] as const) {
    const v = option.validate?.[key];
    if (v !== undefined && v !== '' && toNumber(v) === null) {
      error(`option.validate.${key}`, `validate.${key} 必须是数字：${String(v)}`);
    }
  }
  const min = toNumber(option.validate?.min);
  const max = toNumber(option.validate?.max);
  if (min !== null && max !== null && min > max) error('option.validate', `最小值 ${min} 大于最大值 ${max}`);
  const precision = toNumber(option.validate?.precision);
  if (precision !== null && (!Number.isInteger(precision) || precision < 0)) {
    error('option.validate.precision', '小数位数必须是非负整数');
  }

  for (const [low, high, label] of [
    ['refValueMaleMin', 'refValueMaleMax', '男性'],
    ['refValueFemaleMin', 'refValueFemaleMax', '女性'],
  ] as const) {
    const lo = toNumber(option[low]);
    const hi = toNumber(option[high]);
    if (lo !== null && hi !== null && lo > hi) error(`option.${low}`, `${label}参考值下限 ${lo} 大于上限 ${hi}`);
  }

  const molarMass = toNumber(option.molarMass);
  if (molarMass !== null && molarMass <= 0) error('option.molarMass', '摩尔质量（molarMass）必须大于 0');
  const units = unitsOf(option);
  if (units.length > 1 && hasReferenceRange(option)) {
    // The range is written in the first unit; a unit it cannot be converted to shows no low/high mark.
    for (const unit of units.slice(1)) {
      if (unitFactor(units[0]!, unit, molarMass) === null) {
        const dims = new Set([unitInfo(units[0]!)?.dimension, unitInfo(unit)?.dimension]);
        const needsMolarMass = dims.has('massConcentration') && dims.has('substanceConcentration');
        warn(
          'option.units',
          `参考范围按第一个单位 ${units[0]} 填写，无法换算为 ${unit}${needsMolarMass ? '（需要填写摩尔质量 molarMass）' : ''}：选择该单位时不显示偏高偏低`,
        );
      }
    }
  }

  if (node.type === 'slider') {
    const range = sliderRange(option);
    if (range.min >= range.max) error('option.valueMin', `滑块最小值 ${range.min} 必须小于最大值 ${range.max}`);
    const step = toNumber(option.valueStep);
    if (step !== null && step <= 0) error('option.valueStep', '滑块步长必须大于 0');
  }

  const values = splitList(option.optionsValue);
  const texts = splitList(option.optionsText);
  if (isChoiceType(node.type) && values.length === 0) error('option.optionsValue', '选择题缺少选项（optionsValue）');
  if (texts.length > 0 && texts.length !== values.length) {
    error('option.optionsText', `选项文字数（${texts.length}）与选项值数（${values.length}）不一致`);
  }
  if (values.some((v) => v === '')) error('option.optionsValue', '选项值不能为空');
  const seen = new Set<string>();
  for (const v of values) {
    if (seen.has(v)) error('option.optionsValue', `选项值重复：${v}`);
    seen.add(v);
  }
  for (const index of indexList(option.additionIndex)) {
    if (index >= values.length) {
      error('option.additionIndex', `附加项的选项序号 ${index} 超出选项范围（0 到 ${values.length - 1}）`);
    }
  }
  if (
    option.additionIndex !== undefined &&
    String(option.additionIndex).trim() !== '' &&
    indexList(option.additionIndex).length !== splitList(option.additionIndex).length
  ) {
    error('option.additionIndex', `附加项的选项序号无效：${String(option.additionIndex)}`);
  }
  if (option.trig && (option.tindex === undefined || String(option.tindex).trim() === '')) {
    error('option.tindex', '设置了 trig 但缺少 tindex');
  }
  if (
    option.tindex !== undefined &&
    String(option.tindex).trim() !== '' &&
    indexList(option.tindex).length !== splitList(option.tindex).length
  ) {
    error('option.tindex', `tindex 必须是逗号分隔的选项序号：${String(option.tindex)}`);
  }

  if (option.validationEx && compilePattern(option.validationEx) === null) {
    error('option.validationEx', `正则表达式无效：${option.validationEx}`);
  }

  if (option.format) {
    if (node.type === 'int' || node.type === 'real' || node.type === 'number') {
      try {
        parseConverterRule(option.format);
      } catch (e) {
        error('option.format', e instanceof ValueConversionError ? e.message : String(e));
      }
    } else if (isDateType(node.type) && !isDateFormat(option.format)) {
      error('option.format', `日期格式无效：${option.format}（可用 yyyy、yyyy-MM、yyyy-MM-dd 及时分秒格式）`);
    } else if (node.type === 'time' && option.format !== 'Hour' && option.format !== 'HH:mm:ss') {
      error('option.format', `时间格式无效：${option.format}（可用 Hour 或 HH:mm:ss）`);
    }
  }

  const dv = option.defaultValue;
  if (dv !== undefined && dv !== '' && dv !== 'now') {
    if (isDateType(node.type) && !isValidPartialDate(String(dv), dateFormatOf(node))) {
      error('option.defaultValue', `默认值不是有效日期：${dv}`);
    }
    if (isChoiceType(node.type)) {
      const allowed = new Set(choicesOf(option).map((c) => c.value));
      for (const v of splitList(dv)) if (!allowed.has(v)) error('option.defaultValue', `默认值不在选项中：${v}`);
    }
  }
  if (dv === 'now' && !isDateType(node.type) && node.type !== 'time') {
    error('option.defaultValue', '只有日期和时间题目可以使用默认值 now');
  }

  if (option.showStyle && node.type !== 'title' && !SHOW_STYLES.has(option.showStyle)) {
    warn('option.showStyle', `未知的 showStyle：${option.showStyle}`);
  }
  if ((option.showStyle === 'pastTime' || option.showStyle === 'futureTime') && !isDateType(node.type)) {
    error('option.showStyle', `${option.showStyle} 只能用于日期题目`);
  }
}
