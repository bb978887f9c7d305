import { z } from 'zod';
import { type CrfDefinition, type CrfNode, isRowType } from './crf/crf-definition.schema.js';
import { MAX_ROW_ID } from './ids.js';
import { itemTypeOf } from './crf/item-types/registry.js';
import { missingConditionIssue } from './search-missing.js';

/**
 * Data retrieval (检索, platform §2 /project/{id}/retrieval, §7 Search): the condition model, the
 * operators and which item kinds offer which, the form states, and the request and template shapes.
 * The browser builds conditions from these tables and the server validates and compiles the same ones:
 * one rule, one place.
 */

export const SEARCH_OPERATORS = [
  { code: 'eq', label: '等于', arity: 1 },
  { code: 'ne', label: '不等于', arity: 1 },
  { code: 'gt', label: '大于', arity: 1 },
  { code: 'lt', label: '小于', arity: 1 },
  { code: 'between', label: '介于', arity: 2 },
  { code: 'contains', label: '包含', arity: 'many' },
  { code: 'empty', label: '为空', arity: 0 },
  { code: 'notEmpty', label: '不为空', arity: 0 },
  { code: 'in', label: '属于', arity: 'many' },
  // 缺失原因 (search-missing.ts): offered on a form's own items, not by kind.
  { code: 'missing', label: '缺失原因为', arity: 'many' },
  { code: 'missingAny', label: '已标记缺失', arity: 0 },
] as const;
export type SearchOperator = (typeof SEARCH_OPERATORS)[number]['code'];
const OPERATOR_CODES = SEARCH_OPERATORS.map((o) => o.code) as [SearchOperator, ...SearchOperator[]];

/**
 * What a searchable value is, whatever item type holds it. Dates compare by their YYYY-MM-DD part, so
 * 大于/小于/介于 on a date are date ranges (after, before, between, both ends included). `file`: an upload
 * (image, video, file), searched by whether it holds a file and by the files' names.
 */
export const SEARCH_KINDS = ['text', 'number', 'date', 'choice', 'multiChoice', 'file'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

export const OPERATORS_BY_KIND: Readonly<Record<SearchKind, readonly SearchOperator[]>> = {
  text: ['eq', 'ne', 'contains', 'empty', 'notEmpty'],
  number: ['eq', 'ne', 'gt', 'lt', 'between', 'empty', 'notEmpty'],
  date: ['eq', 'ne', 'gt', 'lt', 'between', 'empty', 'notEmpty'],
  // 属于: one of the chosen options.
  choice: ['eq', 'ne', 'in', 'empty', 'notEmpty'],
  // 包含: every chosen option is ticked; 属于: at least one of them is.
  multiChoice: ['contains', 'in', 'empty', 'notEmpty'],
  // 包含: a file whose name (as uploaded) contains the text.
  file: ['contains', 'empty', 'notEmpty'],
};

/** Extra words the builder shows for an operator of a kind (a date's 大于 is 晚于). */
export function operatorLabel(kind: SearchKind, operator: SearchOperator): string {
  if (kind === 'date') {
    if (operator === 'gt') return '晚于';
    if (operator === 'lt') return '早于';
    if (operator === 'between') return '介于（日期范围）';
  }
  if (kind === 'file' && operator === 'contains') return '文件名包含';
  return SEARCH_OPERATORS.find((o) => o.code === operator)!.label;
}

/**
 * The search kind of a CRF item, or null when it cannot be searched itself (containers, titles, and the list
 * group or table as a whole: its columns are searched, row by row). A text input validated as an integer or a
 * decimal is a number; an upload is a file.
 */
export function searchKindOf(node: Pick<CrfNode, 'type' | 'option'>): SearchKind | null {
  return itemTypeOf(node.type).searchKind(node);
}

/** A searchable item of a form: its node, its kind, and the list group or table whose rows hold it (or null). */
export interface SearchableItem {
  node: CrfNode;
  kind: SearchKind;
  group: CrfNode | null;
}

/** Between a list group's (or table's) title and its column's title where the builder shows an item. */
export const SEARCH_PATH_SEPARATOR = ' › ';
/** The values of a list group's rows in one result cell, in row order (a repeatable form's records: ；). */
export const SEARCH_ROW_SEPARATOR = '; ';

const nodeTitle = (node: CrfNode) => node.title || node.option.title || node.name;

/**
 * The searchable items of a definition in form order, each name once: sections, groups and cards looked into,
 * and the columns of list groups and tables (with the containers inside a row) with their group. Row types do
 * not nest (the engine refuses it), so an item has at most one group.
 */
export function searchableItems(definition: Pick<CrfDefinition, 'children'>): SearchableItem[] {
  const out: SearchableItem[] = [];
  const seen = new Set<string>();
  const walk = (nodes: readonly CrfNode[], group: CrfNode | null) => {
    for (const node of nodes) {
      const kind = searchKindOf(node);
      if (node.name && kind && !seen.has(node.name)) {
        seen.add(node.name);
        out.push({ node, kind, group });
      }
      walk(node.children ?? [], isRowType(node.type) ? node : group);
    }
  };
  walk(definition.children, null);
  return out;
}

/** How the builder names an item: its title, after its list group's or table's title (用药记录 › 药物名称). */
export function searchItemPath(item: Pick<SearchableItem, 'node' | 'group'>): string {
  const title = nodeTitle(item.node);
  return item.group ? `${nodeTitle(item.group)}${SEARCH_PATH_SEPARATOR}${title}` : title;
}

/**
 * Form states (表单状态). A form's records are judged together: 未填 no record; 已保存 a record saved but not
 * submitted; 已提交 every record submitted; 存在质疑 an open query on a record; 已签名 the casebook carries a valid
 * signature and the form has a record; SDV every record verified as a whole form. They are not exclusive.
 */
export const FORM_STATE_FILTERS = [
  { code: 'notFilled', label: '未填' },
  { code: 'saved', label: '已保存' },
  { code: 'submitted', label: '已提交' },
  { code: 'doubt', label: '存在质疑' },
  { code: 'signed', label: '已签名' },
  { code: 'sdv', label: 'SDV' },
] as const;
export type FormStateFilter = (typeof FORM_STATE_FILTERS)[number]['code'];
export const FORM_STATE_OPERATORS = ['eq', 'ne'] as const satisfies readonly SearchOperator[];

/** Patient fields (患者信息) a search offers. `identifier`: shown only with 查看患者身份信息 (PIPL). */
export const PATIENT_SEARCH_FIELDS = [
  { field: 'identificationCode', title: '编号', kind: 'text', identifier: false },
  { field: 'subjectName', title: '患者姓名', kind: 'text', identifier: true },
  { field: 'gender', title: '性别', kind: 'choice', identifier: false },
  { field: 'birth', title: '出生日期', kind: 'date', identifier: true },
  { field: 'age', title: '年龄', kind: 'number', identifier: false },
  { field: 'mobile', title: '手机号', kind: 'text', identifier: true },
  { field: 'idNumber', title: '身份证号', kind: 'text', identifier: true },
  { field: 'diseaseCode', title: '病种', kind: 'choice', identifier: false },
  { field: 'state', title: '患者状态', kind: 'choice', identifier: false },
  { field: 'createTime', title: '入组日期', kind: 'date', identifier: false },
] as const satisfies ReadonlyArray<{ field: string; title: string; kind: SearchKind; identifier: boolean }>;
export type PatientSearchField = (typeof PATIENT_SEARCH_FIELDS)[number]['field'];
const PATIENT_FIELD_NAMES = PATIENT_SEARCH_FIELDS.map((f) => f.field) as [PatientSearchField, ...PatientSearchField[]];

/** Patient codes of platform §3: gender 1 男 0 女; record state 0 在组 1 完成 2 退出. */
export const PATIENT_FIXED_OPTIONS: Partial<
  Record<PatientSearchField, ReadonlyArray<{ value: string; label: string }>>
> = {
  gender: [
    { value: '1', label: '男' },
    { value: '0', label: '女' },
  ],
  state: [
    { value: '0', label: '在组' },
    { value: '1', label: '完成' },
    { value: '2', label: '退出' },
  ],
};

/** The encrypted ID number is matched by its keyed hash: whole numbers only, never a part. */
export function patientFieldOperators(field: PatientSearchField): readonly SearchOperator[] {
  if (field === 'idNumber') return ['eq', 'empty', 'notEmpty'];
  return OPERATORS_BY_KIND[PATIENT_SEARCH_FIELDS.find((f) => f.field === field)!.kind];
}

const idSchema = z.number().int().min(1).max(MAX_ROW_ID);
const valueSchema = z.string().max(200);
const valuesSchema = z.array(valueSchema).max(100).default([]);
const itemNameSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[\p{L}\p{N}_.-]+$/u, '变量名无效');

export const patientConditionSchema = z.object({
  kind: z.literal('patient'),
  field: z.enum(PATIENT_FIELD_NAMES, { error: '患者字段无效' }),
  operator: z.enum(OPERATOR_CODES),
  values: valuesSchema,
});
export const itemConditionSchema = z.object({
  kind: z.literal('item'),
  crfId: idSchema,
  itemName: itemNameSchema,
  /** Optional: the form must belong to this stage. */
  stageId: idSchema.nullish(),
  operator: z.enum(OPERATOR_CODES),
  values: valuesSchema,
});
export const formStateConditionSchema = z.object({
  kind: z.literal('formState'),
  crfId: idSchema,
  stageId: idSchema.nullish(),
  operator: z.enum(FORM_STATE_OPERATORS),
  values: z.array(z.enum(FORM_STATE_FILTERS.map((s) => s.code) as [FormStateFilter, ...FormStateFilter[]])).length(1),
});
export const searchConditionSchema = z.discriminatedUnion('kind', [
  patientConditionSchema,
  itemConditionSchema,
  formStateConditionSchema,
]);
export type SearchCondition = z.infer<typeof searchConditionSchema>;

export const SEARCH_JOINS = [
  { code: 'and', label: '且' },
  { code: 'or', label: '或' },
] as const;
const joinSchema = z.enum(['and', 'or']);
export type SearchJoin = z.infer<typeof joinSchema>;

/** Caps that keep one request's SQL bounded. */
export const SEARCH_LIMITS = { groups: 10, conditionsPerGroup: 20, columns: 60 } as const;

export const searchGroupSchema = z.object({
  join: joinSchema.default('and'),
  conditions: z.array(searchConditionSchema).min(1, '条件组不能为空').max(SEARCH_LIMITS.conditionsPerGroup),
});
export type SearchGroup = z.infer<typeof searchGroupSchema>;

/** Groups joined by `join` (且/或), each a list of conditions joined by the group's own `join`. */
export const searchConditionsSchema = z.object({
  join: joinSchema.default('and'),
  groups: z.array(searchGroupSchema).max(SEARCH_LIMITS.groups).default([]),
});
export type SearchConditions = z.infer<typeof searchConditionsSchema>;

export const searchColumnSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('patient'), field: z.enum(PATIENT_FIELD_NAMES, { error: '患者字段无效' }) }),
  z.object({ kind: z.literal('item'), crfId: idSchema, itemName: itemNameSchema }),
]);
export type SearchColumn = z.infer<typeof searchColumnSchema>;
export const searchColumnsSchema = z.array(searchColumnSchema).max(SEARCH_LIMITS.columns).default([]);

/** The key of a column in a result row's `cells`. */
export function searchColumnKey(column: SearchColumn): string {
  return column.kind === 'patient' ? `p.${column.field}` : `c${column.crfId}.${column.itemName}`;
}

/** What a saved template holds: the same shapes as a search. */
export const searchTemplateBodySchema = z.object({
  name: z.string().trim().min(1, '请输入模板名称').max(50, '模板名称不能超过50个字符'),
  shared: z.boolean().default(false),
  conditions: searchConditionsSchema,
  columns: searchColumnsSchema,
});
export type SearchTemplateBody = z.infer<typeof searchTemplateBodySchema>;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const NUMBER = /^-?\d{1,15}(\.\d{1,10})?$/;

function validDate(text: string): boolean {
  if (!DATE.test(text)) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text;
}

/**
 * Whether an operator with these values makes sense for a kind: the message to show, or null. `options`
 * are the choice codes an option item offers (a code outside them is refused).
 */
export function conditionIssue(
  kind: SearchKind,
  operator: SearchOperator,
  values: readonly string[],
  allowed: readonly SearchOperator[] = OPERATORS_BY_KIND[kind],
  options?: readonly string[],
): string | null {
  if (!allowed.includes(operator)) return `该字段不支持“${operatorLabel(kind, operator)}”`;
  if (operator === 'missing') return missingConditionIssue(values);
  const arity = SEARCH_OPERATORS.find((o) => o.code === operator)!.arity;
  if (arity === 0) return values.length === 0 ? null : '“为空/不为空”不需要值';
  if (arity === 1 && values.length !== 1) return '请输入一个值';
  if (arity === 2 && values.length !== 2) return '请输入范围的两端';
  if (arity === 'many' && values.length === 0) return '请选择或输入值';
  if ((kind === 'text' || kind === 'file') && values.length !== 1) return '请输入一个值';
  if (values.some((v) => v.trim() === '')) return '请输入值';
  if (kind === 'number' && values.some((v) => !NUMBER.test(v.trim()))) return '请输入数字';
  if (kind === 'date' && values.some((v) => !validDate(v.trim()))) return '请输入日期（YYYY-MM-DD）';
  if ((kind === 'choice' || kind === 'multiChoice') && options && values.some((v) => !options.includes(v))) {
    return '选项不存在';
  }
  if (operator === 'between') {
    const [a, b] = values.map((v) => v.trim()) as [string, string];
    const inOrder = kind === 'number' ? Number(a) <= Number(b) : a <= b;
    if (!inOrder) return '范围的起点不能大于终点';
  }
  return null;
}
