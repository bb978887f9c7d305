/** One REDCap field to one of our items: its type, choices, validation, bounds, logic and action tags. */
import { CRF_MSG } from '../crf-messages.js';
import type { CrfNode, ItemOption } from '../crf-definition.schema.js';
import type { RedcapField } from './redcap-dictionary.js';
import { PHONE_NOTE, readEcrfTags } from './redcap-ecrf-tags.js';
import { translateRedcapLogic, type RedcapFieldKind } from './redcap-logic.js';

export const stripHtml = (text: string) =>
  text
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .trim();

/** "1, 男 | 2, 女" → parallel comma lists; commas inside labels become full-width (our lists split on ASCII commas). */
function parseChoices(
  text: string,
  warn: (message: string) => void,
): { optionsValue: string; optionsText: string } | null {
  if (text === '') return null;
  const values: string[] = [];
  const texts: string[] = [];
  let replaced = false;
  for (const part of text.split('|')) {
    const trimmed = part.trim();
    if (trimmed === '') continue;
    const comma = trimmed.indexOf(',');
    const code = (comma < 0 ? trimmed : trimmed.slice(0, comma)).trim();
    let label = stripHtml(comma < 0 ? trimmed : trimmed.slice(comma + 1).trim());
    if (label.includes(',')) {
      label = label.replace(/,/g, '，');
      replaced = true;
    }
    values.push(code);
    texts.push(label);
  }
  if (replaced) warn('选项文字中的英文逗号已改为中文逗号（选项列表以英文逗号分隔）');
  return { optionsValue: values.join(','), optionsText: texts.join(',') };
}

const TEXT_VALIDATIONS: Record<string, (option: ItemOption) => CrfNode['type']> = {
  '': () => 'input',
  integer: () => 'int',
  number: () => 'real',
  number_1dp: (o) => ((o.validate = { ...o.validate, precision: 1 }), 'real'),
  number_2dp: (o) => ((o.validate = { ...o.validate, precision: 2 }), 'real'),
  number_3dp: (o) => ((o.validate = { ...o.validate, precision: 3 }), 'real'),
  number_4dp: (o) => ((o.validate = { ...o.validate, precision: 4 }), 'real'),
  // REDCap stores and exports every date Y-M-D; the order it shows one in is kept for the export (dateOrder).
  date_ymd: () => 'date',
  date_mdy: (o) => ((o.dateOrder = 'mdy'), 'date'),
  date_dmy: (o) => ((o.dateOrder = 'dmy'), 'date'),
  datetime_ymd: (o) => ((o.format = 'yyyy-MM-dd HH:mm'), 'datetime'),
  datetime_mdy: (o) => ((o.format = 'yyyy-MM-dd HH:mm'), (o.dateOrder = 'mdy'), 'datetime'),
  datetime_dmy: (o) => ((o.format = 'yyyy-MM-dd HH:mm'), (o.dateOrder = 'dmy'), 'datetime'),
  datetime_seconds_ymd: () => 'datetime',
  datetime_seconds_mdy: (o) => ((o.dateOrder = 'mdy'), 'datetime'),
  datetime_seconds_dmy: (o) => ((o.dateOrder = 'dmy'), 'datetime'),
  time: (o) => ((o.format = 'Hour'), 'time'),
  time_hh_mm_ss: () => 'time',
  email: (o) => ((o.validate = { ...o.validate, type: 'email' }), 'input'),
  phone: (o) => ((o.validate = { ...o.validate, type: 'phone' }), 'input'),
  alpha_only: (o) => ((o.validationEx = '^[A-Za-z]+$'), 'input'),
  zipcode: (o) => ((o.validationEx = '^\\d{5}(-\\d{4})?$'), 'input'),
  // Comma-decimal numbers are numbers with the same precision; the value is stored with a point.
  number_comma_decimal: () => 'real',
  number_1dp_comma_decimal: (o) => ((o.validate = { ...o.validate, precision: 1 }), 'real'),
  number_2dp_comma_decimal: (o) => ((o.validate = { ...o.validate, precision: 2 }), 'real'),
  number_3dp_comma_decimal: (o) => ((o.validate = { ...o.validate, precision: 3 }), 'real'),
  number_4dp_comma_decimal: (o) => ((o.validate = { ...o.validate, precision: 4 }), 'real'),
  // Minutes and seconds (a duration such as a 6-minute walk), as text with its pattern.
  time_mm_ss: (o) => (
    (o.validationEx = '^[0-5]\\d:[0-5]\\d$'),
    (o.validationErrorMsg = '请按 分:秒 填写，如 05:30'),
    'input'
  ),
  mrn_10d: (o) => ((o.validationEx = '^\\d{10}$'), (o.validationErrorMsg = '请输入10位病历号'), 'input'),
  mrn_generic: () => 'input',
};

/**
 * A date bound of a dictionary as ISO text: `1/1/1900` is read day- or month-first as the field's
 * validation says (`date_dmy` → day first, otherwise month first, REDCap's US default), and
 * `2023-8-1 1:01` is zero-padded, so bounds compare as dates rather than as arbitrary text.
 */
export function normalizeDateBound(bound: string, validation: string): string {
  const text = bound.trim();
  const time = (rest: string | undefined) => {
    if (!rest) return '';
    const m = /^\s*(\d{1,2}):(\d{2})(?::(\d{2}))?/.exec(rest);
    return m ? ` ${m[1]!.padStart(2, '0')}:${m[2]}${m[3] ? `:${m[3]}` : ''}` : '';
  };
  const pad = (n: string) => n.padStart(2, '0');
  const iso = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(.*)$/.exec(text);
  if (iso) return `${iso[1]}-${pad(iso[2]!)}-${pad(iso[3]!)}${time(iso[4])}`;
  const local = /^(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})(.*)$/.exec(text);
  if (local) {
    const [first, second] = [local[1]!, local[2]!];
    const [day, month] = validation.endsWith('dmy') ? [first, second] : [second, first];
    return `${local[3]}-${pad(month)}-${pad(day)}${time(local[4])}`;
  }
  return text;
}

const SUPPORTED_TAGS =
  /@(HIDDEN|HIDDEN-FORM|READONLY|READONLY-FORM|TODAY|NOW|DEFAULT|CHARLIMIT|PLACEHOLDER|CALCTEXT)\b/;

export function fieldToNode(
  field: RedcapField,
  known: (v: string) => RedcapFieldKind | undefined,
  warn: (message: string) => void,
): CrfNode {
  const option: ItemOption = {};
  let type: CrfNode['type'];
  const withChoices = () => {
    const choices = parseChoices(field.choices, warn);
    if (choices) Object.assign(option, choices);
    else warn('选择题没有选项');
  };
  switch (field.type) {
    case 'text': {
      const map = TEXT_VALIDATIONS[field.validation];
      if (map) type = map(option);
      else {
        type = 'input';
        warn(`文本校验类型 ${field.validation} 无法转换，已作为无校验文本导入`);
      }
      if (field.validation === 'phone') warn('REDCap 的 phone 校验按北美号码；已改为中国大陆手机号校验');
      break;
    }
    case 'notes':
      type = 'textarea';
      break;
    case 'dropdown':
      type = 'select';
      withChoices();
      break;
    case 'radio':
      type = 'radio';
      withChoices();
      break;
    case 'checkbox':
      type = 'checkbox';
      withChoices();
      break;
    case 'yesno':
      type = 'radio';
      Object.assign(option, { optionsValue: '1,0', optionsText: '是,否' });
      break;
    case 'truefalse':
      type = 'radio';
      Object.assign(option, { optionsValue: '1,0', optionsText: '正确,错误' });
      break;
    case 'calc': {
      type = 'real';
      option.readOnly = 1;
      const translated = translateRedcapLogic(field.choices, known);
      if (translated.ok) option.calc = translated.expression;
      else warn(`计算公式无法转换（${translated.reason}）：${field.choices}`);
      break;
    }
    case 'slider': {
      type = 'slider';
      const bound = (text: string, fallback: number) =>
        text === '' ? fallback : Number.isFinite(Number(text)) ? Number(text) : text;
      option.valueMin = bound(field.min, 0);
      option.valueMax = bound(field.max, 100);
      const labels = field.choices.split('|').map((s) => stripHtml(s.trim()));
      if (labels.some((l) => l !== '')) option.description = labels.filter((l) => l !== '').join(' … ');
      break;
    }
    case 'file':
      type = 'fileUpload';
      if (field.validation === 'signature') warn('签名字段已作为文件上传题导入');
      break;
    case 'descriptive':
      type = 'title';
      break;
    case 'sql':
      type = 'input';
      warn('SQL 字段的选项来自数据库查询，无法转换；已作为文本题导入');
      break;
    default:
      type = 'input';
      warn(`未知的字段类型 ${field.type}，已作为文本题导入`);
  }
  // REDCap's min and max are soft: out of range, the page warns and the user may keep the value.
  // They become warning checks (which the platform turns into system queries at submit), never errors.
  if ((field.min !== '' || field.max !== '') && field.type === 'text') {
    if (type === 'int' || type === 'real') {
      const number = (v: string) => Number(v.replace(',', '.'));
      const checks = [];
      if (field.min !== '' && Number.isFinite(number(field.min))) {
        checks.push({
          expression: `${field.variable} >= ${number(field.min)}`,
          message: CRF_MSG.belowMin(number(field.min)),
          severity: 'warning' as const,
        });
      }
      if (field.max !== '' && Number.isFinite(number(field.max))) {
        checks.push({
          expression: `${field.variable} <= ${number(field.max)}`,
          message: CRF_MSG.aboveMax(number(field.max)),
          severity: 'warning' as const,
        });
      }
      option.checks = checks;
    } else if (type === 'date' || type === 'datetime') {
      const checks = [];
      const bound = (v: string) =>
        v.toLowerCase() === 'today' || v.toLowerCase() === 'now'
          ? `${v.toLowerCase()}()`
          : JSON.stringify(normalizeDateBound(v, field.validation));
      if (field.min !== '') {
        checks.push({
          expression: `${field.variable} >= ${bound(field.min)}`,
          message: `不能早于 ${/^(today|now)$/i.test(field.min) ? field.min : normalizeDateBound(field.min, field.validation)}`,
          severity: 'warning' as const,
        });
      }
      if (field.max !== '') {
        checks.push({
          expression: `${field.variable} <= ${bound(field.max)}`,
          message: `不能晚于 ${/^(today|now)$/i.test(field.max) ? field.max : normalizeDateBound(field.max, field.validation)}`,
          severity: 'warning' as const,
        });
      }
      option.checks = checks;
    } else warn(`校验范围 ${field.min}–${field.max} 无法用于 ${field.validation || '文本'} 字段，未导入`);
  }
  const tags = readEcrfTags(field.annotation);
  // The mainland mobile rule our export wrote as a tag and a note (REDCap's phone is North American).
  const note = tags.phone
    ? stripHtml(field.note)
        .split('；')
        .filter((part) => part !== PHONE_NOTE)
        .join('；')
    : stripHtml(field.note);
  if (tags.phone && type === 'input') option.validate = { ...option.validate, type: 'phone' };
  if (note) option.description = option.description ? `${option.description}；${note}` : note;
  if (field.required.toLowerCase() === 'y') option.required = 1;
  if (field.identifier.toLowerCase() === 'y') option.identifier = 1;
  if (field.alignment) option.itemLayout = field.alignment.endsWith('H') ? 'horizontal' : 'vertical';
  if (field.questionNumber) warn(`问卷题号 ${field.questionNumber} 未导入（仅用于 REDCap 问卷）`);
  if (field.matrixRanking.toLowerCase() === 'y') warn('矩阵排序（Matrix Ranking）无法转换');
  if (field.branching) {
    const translated = translateRedcapLogic(field.branching, known);
    if (translated.ok) option.showIf = translated.expression;
    else warn(`分支逻辑无法转换，该字段将始终显示（${translated.reason}）：${field.branching}`);
  }
  applyAnnotation({ ...field, annotation: tags.rest }, type, option, warn, known);
  const label = stripHtml(field.label);
  // Entities (&lt; for a literal <) are how REDCap writes text; only tags are formatting that is lost.
  if (/<[^>]*>/.test(field.label)) warn('标签中的 HTML 格式已去除');
  return { name: field.variable, title: label, type, option, children: [] };
}

/** The text between the parentheses of `@TAG(…)`, nested parentheses and quotes allowed; null when absent. */
function tagArgument(text: string, tag: string): { argument: string; end: number } | null {
  const start = text.indexOf(`${tag}(`);
  if (start < 0) return null;
  let depth = 0;
  let quote: string | null = null;
  for (let i = start + tag.length; i < text.length; i += 1) {
    const ch = text[i]!;
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '(') depth += 1;
    else if (ch === ')') {
      depth -= 1;
      if (depth === 0) return { argument: text.slice(start + tag.length + 1, i), end: i + 1 };
    }
  }
  return null;
}

function applyAnnotation(
  field: RedcapField,
  type: CrfNode['type'],
  option: ItemOption,
  warn: (message: string) => void,
  known: (v: string) => RedcapFieldKind | undefined,
) {
  let text = field.annotation;
  if (!text) return;
  // @CALCTEXT(…): a calculated text on a text field, read-only like a calc field.
  const calcText = tagArgument(text, '@CALCTEXT');
  if (calcText) {
    text = `${text.slice(0, text.indexOf('@CALCTEXT('))}${text.slice(calcText.end)}`;
    const translated = translateRedcapLogic(calcText.argument, known);
    if (translated.ok && (type === 'input' || type === 'textarea')) {
      option.calc = translated.expression;
      option.readOnly = 1;
    } else {
      warn(`@CALCTEXT 无法转换（${translated.ok ? '只能用于文本字段' : translated.reason}）：${calcText.argument}`);
    }
  }
  // REDCap's @HIDDEN hides the field on the page only: its calculation runs and its value is saved.
  if (/@HIDDEN(-FORM)?\b(?!-)/.test(text)) option.notDisplayed = 1;
  if (/@READONLY(-FORM)?\b(?!-)/.test(text)) option.readOnly = 1;
  if (/@(TODAY|NOW)\b/.test(text)) {
    if (type === 'date' || type === 'datetime' || type === 'time') option.defaultValue = 'now';
    else warn('@TODAY/@NOW 只能用于日期或时间字段，未导入');
  }
  const dv = /@DEFAULT\s*=\s*(['"])(.*?)\1/.exec(text);
  if (dv) option.defaultValue = dv[2]!;
  const placeholder = /@PLACEHOLDER\s*=\s*(['"])(.*?)\1/.exec(text);
  if (placeholder) option.placeholder = placeholder[2]!;
  const limit = /@CHARLIMIT\s*=\s*(['"]?)(\d+)\1/.exec(text);
  if (limit) {
    if (type === 'input' || type === 'textarea') option.validate = { ...option.validate, max: Number(limit[2]) };
    else warn('@CHARLIMIT 只能用于文本字段，未导入');
  }
  const others = [...text.matchAll(/@[A-Z][A-Z0-9_-]*/g)]
    .map((m) => m[0])
    .filter((tag) => !SUPPORTED_TAGS.test(tag) || /-SURVEY/.test(tag));
  if (others.length > 0) warn(`动作标签 ${[...new Set(others)].join(' ')} 无法转换`);
  const plain = text.replace(/@[A-Z][A-Z0-9_-]*(\s*=\s*((['"]).*?\3|\d+))?/g, '').trim();
  if (plain) warn(`字段注释未导入：${plain}`);
}
