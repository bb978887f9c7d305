/**
 * Test utility: REDCap's own rules for a data dictionary upload and a records import, written out from REDCap's
 * source (v15.7.6: MetaData.php's dictionary checks, Records::saveData's value checks, the validation patterns of
 * redcap_validation_types, Project::getExtendedCheckboxCodeFormatted) to judge our files the way REDCap would,
 * independently of the exporter's own code. Not used by the product.
 */
import Papa from 'papaparse';

/** One dictionary row, by REDCap's 18 columns in order. */
export interface DictionaryField {
  variable: string;
  form: string;
  type: string;
  choices: string;
  validation: string;
  min: string;
  max: string;
  annotation: string;
}

/** REDCap's JavaScript validation patterns (redcap_validation_types.regex_js). */
const YMD =
  '(((\\d{2}([13579][26]|[2468][048]|04|08)|(1600|2[048]00))([-\\/])02(\\6)29)|(\\d{4}([-\\/])((0[1-9]|1[012])(\\9)(0[1-9]|1\\d|2[0-8])|((0[13-9]|1[012])(\\9)(29|30))|((0[13578]|1[02])(\\9)31))))';
const EMAIL_PART =
  'a-zA-Z0-9\\u0080-\\u02AF\\u0300-\\u07FF\\u0900-\\u18AF\\u1900-\\u1A1F\\u1B00-\\u1B7F\\u1D00-\\u1FFF\\u20D0-\\u214F\\u2C00-\\u2DDF\\u2F00-\\u2FDF\\u2FF0-\\u2FFF\\u3040-\\u319F\\u31C0-\\uA4CF\\uA700-\\uA71F\\uA800-\\uA82F\\uA840-\\uA87F\\uAC00-\\uD7AF\\uF900-\\uFAFF';
const PATTERNS: Record<string, RegExp> = {
  date_ymd: new RegExp(`^${YMD}$`),
  datetime_ymd: new RegExp(`^${YMD} (\\d|[0-1]\\d|[2][0-3]):[0-5]\\d$`),
  datetime_seconds_ymd: new RegExp(`^${YMD} (\\d|[0-1]\\d|[2][0-3])(:[0-5]\\d){2}$`),
  integer: /^[-+]?\b\d+\b$/,
  number: /^[-+]?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/,
  number_1dp: /^-?\d+\.\d$/,
  number_2dp: /^-?\d+\.\d{2}$/,
  number_3dp: /^-?\d+\.\d{3}$/,
  number_4dp: /^-?\d+\.\d{4}$/,
  time: /^([0-9]|[0-1][0-9]|[2][0-3]):([0-5][0-9])$/,
  time_hh_mm_ss: /^(\d|[01]\d|(2[0-3]))(:[0-5]\d){2}$/,
  time_mm_ss: /^[0-5]\d:[0-5]\d$/,
  alpha_only: /^[a-z]+$/i,
  zipcode: /^\d{5}(-\d{4})?$/,
  mrn_10d: /^\d{10}$/,
  mrn_generic: /^[a-z0-9-_]+$/i,
  phone:
    /^(?:\(?([2-9]0[1-9]|[2-9]1[02-9]|[2-9][2-9][0-9]|800|811)\)?)\s*(?:[.-]\s*)?([0-9]{3})\s*(?:[.-]\s*)?([0-9]{4})(?:\s*(?:#|x\.?|ext\.?|extension)\s*(\d+))?$/,
  email: new RegExp(
    `^(?!\\.)((?!.*\\.{2})[${EMAIL_PART}!#$%&'*+\\-/=?^_\`{|}~\\d]+)(\\.[${EMAIL_PART}!#$%&'*+\\-/=?^_\`{|}~\\d]+)*@(?!\\.)([${EMAIL_PART}\\-\\.\\d]+)((\\.([${EMAIL_PART.replace('a-zA-Z0-9', 'a-zA-Z')}]){2,63})+)$`,
    'i',
  ),
};

/** REDCap checks every date field's import as Y-M-D (convertDateValidtionToYMD), whatever order it shows. */
const importPattern = (validation: string) =>
  PATTERNS[validation.replace(/^(date|datetime|datetime_seconds)_(dmy|mdy)$/, '$1_ymd')];

const FIELD_TYPES = new Set([
  'text',
  'notes',
  'radio',
  'dropdown',
  'calc',
  'file',
  'checkbox',
  'yesno',
  'truefalse',
  'descriptive',
  'slider',
  'sql',
]);
/** Project::$reserved_field_names. */
const RESERVED = new Set([
  'redcap_event_name',
  'redcap_csrf_token',
  'redcap_survey_timestamp',
  'redcap_survey_identifier',
  'redcap_survey_return_code',
  'redcap_data_access_group',
  'hidden_edit_flag',
  'instance',
  'redcap_repeat_instance',
  'redcap_repeat_instrument',
  'submit',
  'new',
  'return',
  'continue',
  'case',
  'switch',
  'class',
  'enum',
  'catch',
  'throw',
  'document',
  'super',
  'focus',
  'elements',
  'action',
  'event_id',
  'target',
  'field_label',
]);
const MC_TYPES = new Set(['radio', 'dropdown', 'checkbox']);
const LEGAL_CODE = /^[a-zA-Z0-9._-]+$/;
const numeric = (text: string) => text.trim() !== '' && Number.isFinite(Number(text));

/** Project::getExtendedCheckboxCodeFormatted. */
export const checkboxCode = (code: string) =>
  code
    .replace(/-/g, '_')
    .toLowerCase()
    .replace(/[^a-z_0-9]/g, '');

/** "1, 男 | 2, 女": the codes, as REDCap's dictionary check parses them (a part without a comma is its own code). */
export function choiceCodes(choices: string): string[] {
  return choices
    .split('|')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => (part.includes(',') ? part.slice(0, part.indexOf(',')) : part).trim());
}

export function parseDictionary(csv: string): DictionaryField[] {
  const rows = Papa.parse<string[]>(csv.replace(/^\uFEFF/, ''), { skipEmptyLines: 'greedy' }).data.slice(1);
  return rows.map((r) => ({
    variable: r[0] ?? '',
    form: r[1] ?? '',
    type: r[3] ?? '',
    choices: r[5] ?? '',
    validation: r[7] ?? '',
    min: r[8] ?? '',
    max: r[9] ?? '',
    annotation: r[17] ?? '',
  }));
}

/** What REDCap's dictionary upload refuses (errors), row by row. */
export function checkDictionary(csv: string): string[] {
  const header = Papa.parse<string[]>(csv.replace(/^\uFEFF/, ''), { preview: 1 }).data[0] ?? [];
  const problems: string[] = [];
  if (header.length !== 18) problems.push(`数据字典应有 18 列，实为 ${header.length} 列`);
  const fields = parseDictionary(csv);
  const seen = new Set<string>();
  const formsSeen: string[] = [];
  fields.forEach((f, i) => {
    const at = `第 ${i + 2} 行 ${f.variable}`;
    const say = (message: string) => problems.push(`${at}：${message}`);
    if (!/^[a-z0-9_]+$/.test(f.variable)) say('变量名只能用小写字母、数字和下划线');
    if (/^[0-9_]/.test(f.variable)) say('变量名不能以数字或下划线开头');
    if (f.variable.endsWith('_')) say('变量名不能以下划线结尾');
    if (f.variable.includes('__')) say('变量名不能含有连续下划线');
    if (f.variable.length > 100) say('变量名超过 100 个字符');
    if (RESERVED.has(f.variable)) say('变量名是 REDCap 的保留名');
    if (seen.has(f.variable)) say('变量名重复');
    seen.add(f.variable);
    if (!/^[a-z][a-z0-9_]*$/.test(f.form) || f.form.includes('__') || f.form.endsWith('_')) {
      say(`表单名 ${f.form} 不合法`);
    }
    if (f.form.length > 64) say(`表单名 ${f.form} 超过 64 个字符`);
    if (formsSeen.includes(f.form) && formsSeen.at(-1) !== f.form) say(`表单 ${f.form} 的字段不连续`);
    if (formsSeen.at(-1) !== f.form) formsSeen.push(f.form);
    if (!FIELD_TYPES.has(f.type)) say(`字段类型 ${f.type} 不存在`);
    if (f.type === 'text' && f.validation !== '' && !importPattern(f.validation)) {
      say(`校验类型 ${f.validation} 不存在`);
    }
    if (f.type === 'slider' && f.validation !== '' && f.validation !== 'number') say('滑块的第 H 列只能为空或 number');
    if (f.type === 'calc' && f.choices.trim() === '') say('计算字段没有公式');
    if (MC_TYPES.has(f.type)) {
      const codes = choiceCodes(f.choices);
      if (codes.length === 0) say('选择题没有选项');
      const bad = codes.filter((c) => !numeric(c) && !LEGAL_CODE.test(c));
      if (bad.length > 0) say(`选项代码 ${bad.join(', ')} 含有 REDCap 不接受的字符`);
      if (new Set(codes).size < codes.length) say('选项代码重复');
      const columns = codes.map(checkboxCode);
      if (f.type === 'checkbox' && new Set(columns).size < columns.length) say('复选框的导出列名重复');
    }
  });
  const completes = new Set(formsSeen.map((form) => `${form}_complete`));
  for (const f of fields) if (completes.has(f.variable)) problems.push(`${f.variable}：变量名与表单状态字段重名`);
  if (fields[0] && fields[0].type !== 'text') {
    problems.push(`第一个字段 ${fields[0].variable} 是记录标识，应为文本字段`);
  }
  return problems;
}

export interface RecordsContext {
  /** The unique event names of a longitudinal project; absent for a classic one. */
  events?: readonly string[];
  /** Forms set up as repeating instruments. */
  repeating?: ReadonlySet<string>;
  /** Forms designated for each event (the instrument–event mapping). */
  formsOfEvent?: ReadonlyMap<string, ReadonlySet<string>>;
}

/** What REDCap's records import (Data Import Tool, API `content=record`, flat CSV) refuses, cell by cell. */
export function checkRecords(recordsCsv: string, dictionaryCsv: string, context: RecordsContext = {}): string[] {
  const parsed = Papa.parse<Record<string, string>>(recordsCsv.replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: 'greedy',
  });
  const header = parsed.meta.fields ?? [];
  const rows = parsed.data;
  const fields = parseDictionary(dictionaryCsv);
  const byVariable = new Map(fields.map((f) => [f.variable, f]));
  const forms = new Set(fields.map((f) => f.form));
  const boxColumns = new Map<string, DictionaryField>();
  for (const f of fields) {
    if (f.type === 'checkbox') {
      for (const code of choiceCodes(f.choices)) boxColumns.set(`${f.variable}___${checkboxCode(code)}`, f);
    }
  }
  const problems: string[] = [];
  const recordId = fields[0]?.variable;
  if (header[0] !== recordId) problems.push(`第一列应为记录标识 ${recordId}，实为 ${header[0]}`);
  const longitudinal = context.events !== undefined;
  if (longitudinal && !header.includes('redcap_event_name')) problems.push('纵向项目的数据缺少 redcap_event_name 列');
  const META = new Set([
    'redcap_event_name',
    'redcap_repeat_instrument',
    'redcap_repeat_instance',
    'redcap_data_access_group',
  ]);
  const formOfColumn = new Map<string, string>();
  for (const column of header) {
    const field = byVariable.get(column) ?? boxColumns.get(column);
    const status = column.endsWith('_complete') && forms.has(column.slice(0, -'_complete'.length));
    if (META.has(column)) continue;
    if (status) formOfColumn.set(column, column.slice(0, -'_complete'.length));
    else if (!field) problems.push(`列 ${column} 在数据字典中不存在`);
    else if (field.type === 'descriptive') problems.push(`列 ${column} 是说明字段，不能导入`);
    else if (field.type === 'checkbox' && !boxColumns.has(column)) {
      problems.push(`列 ${column} 是复选框，应写作 ${column}___<代码>`);
    } else formOfColumn.set(column, field.form);
  }
  rows.forEach((row, i) => {
    const line = i + 2;
    const say = (column: string, message: string) =>
      problems.push(`第 ${line} 行 ${column}=${JSON.stringify(row[column] ?? '')}：${message}`);
    if (!row[recordId ?? '']) say(recordId ?? '', '记录标识为空');
    const event = row.redcap_event_name ?? '';
    if (longitudinal && !context.events!.includes(event)) say('redcap_event_name', '不是项目的事件');
    const instrument = row.redcap_repeat_instrument ?? '';
    const instance = row.redcap_repeat_instance ?? '';
    if (instrument !== '' && !forms.has(instrument)) say('redcap_repeat_instrument', '不是数据字典中的表单');
    if (instrument !== '' && context.repeating && !context.repeating.has(instrument)) {
      say('redcap_repeat_instrument', '不是重复表单');
    }
    if (instrument !== '' && !/^[1-9]\d*$/.test(instance)) say('redcap_repeat_instance', '应为正整数');
    if (instrument === '' && instance !== '') say('redcap_repeat_instance', '没有 redcap_repeat_instrument');
    for (const column of header) {
      const value = row[column] ?? '';
      const form = formOfColumn.get(column);
      if (value === '' || form === undefined || column === recordId) continue;
      if (instrument !== '' && form !== instrument) say(column, `字段不在重复表单 ${instrument} 中`);
      if (instrument === '' && context.repeating?.has(form)) {
        say(column, `字段属于重复表单 ${form}，缺少 redcap_repeat_instrument`);
      }
      if (longitudinal && context.formsOfEvent && !context.formsOfEvent.get(event)?.has(form)) {
        say(column, `表单 ${form} 未指定给事件 ${event}`);
      }
      if (!byVariable.has(column) && !boxColumns.has(column)) {
        if (!['0', '1', '2'].includes(value)) say(column, '表单状态只能是 0、1 或 2');
        continue;
      }
      const box = boxColumns.get(column);
      if (box) {
        if (value !== '0' && value !== '1') say(column, '复选框只能是 0 或 1');
        continue;
      }
      const field = byVariable.get(column)!;
      checkValue(field, value, (message) => say(column, message));
    }
  });
  return problems;
}

function checkValue(field: DictionaryField, value: string, say: (message: string) => void) {
  if (MC_TYPES.has(field.type)) {
    if (!choiceCodes(field.choices).includes(value)) say('不是该字段的选项代码');
  } else if (field.type === 'yesno' || field.type === 'truefalse') {
    if (value !== '0' && value !== '1') say('只能是 0 或 1');
  } else if (field.type === 'slider') {
    const [min, max] = [field.min === '' ? 0 : Number(field.min), field.max === '' ? 100 : Number(field.max)];
    if (!/^-?\d+$/.test(value)) say('滑块只能是整数');
    else if (Number(value) < min || Number(value) > max) say(`滑块超出 ${min}–${max}`);
  } else if (field.type === 'text' && field.validation !== '' && !/@CALCTEXT/.test(field.annotation)) {
    const pattern = importPattern(field.validation);
    if (pattern && !pattern.test(value)) say(`不符合 ${field.validation} 校验`);
  }
}
