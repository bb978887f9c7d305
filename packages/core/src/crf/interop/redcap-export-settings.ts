/**
 * An item's REDCap settings besides its type: text validation, calculation, bounds, the default and other
 * action tags, and the report of what has no place in REDCap.
 */
import { CRF_MSG } from '../crf-messages.js';
import type { CrfNode, CrossCheck } from '../crf-definition.schema.js';
import { KNOWN_OPTION_KEYS } from '../crf-definition.schema.js';
import { toNumber } from '../options.js';
import { parseConverterRule } from '../value-converter.js';
import { ECRF_PHONE_TAG } from './redcap-ecrf-tags.js';
import { quoteRedcap, redcapCalculation, UnprintableError } from './redcap-logic-export.js';
import type { FormContext } from './redcap-export-context.js';
import type { Row } from './redcap-export-rows.js';

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

export function textValidation(
  ctx: FormContext,
  node: CrfNode,
  row: Row,
  tags: string[],
  use: (...keys: string[]) => void,
) {
  const o = node.option;
  const warn = (message: string) => ctx.warn(message, node.name || undefined);
  use('validate', 'validationEx', 'validationErrorMsg', 'format');
  const type = o.validate?.type;
  if (type === 'email') row.validation = 'email';
  else if (type === 'phone') {
    // REDCap's phone is North American: a mainland mobile would fail it, and its dictionary takes no pattern.
    tags.push(ECRF_PHONE_TAG);
    warn('REDCap 的 phone 校验是北美号码格式，中国大陆手机号会被拒绝：导出为无校验文本，字段注释写明中国大陆手机号');
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

export function calculation(ctx: FormContext, node: CrfNode, formula: string, row: Row, tags: string[]) {
  const warn = (message: string) => ctx.warn(message, node.name || undefined);
  let text: string;
  try {
    text = redcapCalculation(formula, ctx.logic(node.name || undefined));
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

export function bounds(ctx: FormContext, node: CrfNode, row: Row, use: (...keys: string[]) => void) {
  const o = node.option;
  const warn = (message: string) => ctx.warn(message, node.name || undefined);
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

export function defaultValue(ctx: FormContext, node: CrfNode, row: Row, tags: string[]) {
  const value = String(node.option.defaultValue);
  if (value.toLowerCase() === 'now') {
    const dateOnly = row.validation.startsWith('date_') || node.type === 'partialDate';
    tags.push(dateOnly ? '@TODAY' : '@NOW');
    return;
  }
  quotedTag('@DEFAULT', value, tags, (message) => ctx.warn(message, node.name || undefined));
}

export function quotedTag(tag: string, value: string, tags: string[], warn: (message: string) => void) {
  try {
    tags.push(`${tag}=${quoteRedcap(value)}`);
  } catch (error) {
    if (!(error instanceof UnprintableError)) throw error;
    warn(`${tag} 未导出：${error.message}`);
  }
}

export function reportOthers(ctx: FormContext, node: CrfNode, handled: Set<string>) {
  const o = node.option as Record<string, unknown>;
  const present = (k: string) => o[k] !== undefined && o[k] !== '' && !handled.has(k);
  const display = DISPLAY_ONLY.filter(present);
  if (display.length > 0) {
    ctx.warn(`显示设置 ${display.join(', ')} 在 REDCap 中没有对应，未导出`, node.name || undefined);
  }
  const ranges = REFERENCE_RANGE.filter(present);
  if (ranges.length > 0) ctx.warn('REDCap 没有参考范围，参考范围未导出', node.name || undefined);
  const recognition = RECOGNITION.filter(present);
  if (recognition.length > 0) {
    ctx.warn(`识别设置 ${recognition.join(', ')} 在 REDCap 中没有对应，未导出`, node.name || undefined);
  }
  const known = new Set<string>([...DISPLAY_ONLY, ...REFERENCE_RANGE, ...RECOGNITION]);
  const others = Object.keys(o).filter((k) => present(k) && !known.has(k));
  if (others.length > 0) {
    const unknown = others.filter((k) => !KNOWN_OPTION_KEYS.has(k));
    const lost = others.filter((k) => KNOWN_OPTION_KEYS.has(k));
    if (lost.length > 0) {
      ctx.warn(`选项 ${lost.join(', ')} 在 REDCap 中没有对应，未导出`, node.name || undefined);
    }
    if (unknown.length > 0) ctx.warn(`自定义选项 ${unknown.join(', ')} 未导出`, node.name || undefined);
  }
}

/** Branching logic and section headers, once every row of the form is known (kinds come from rows). */
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
