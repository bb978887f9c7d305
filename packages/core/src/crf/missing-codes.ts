import { z } from 'zod';
import { rowIdSchema } from '../ids.js';
import { statName, type ExportVariable } from '../export.js';
import { isValueType, type CrfDefinition, type CrfNode } from './crf-definition.schema.js';
import { additionKey, getCompiledForm, type FormIssue, type FormState } from './evaluate-form.js';
import { isEmptyValue } from './field-rules.js';

/**
 * 缺失原因 (issue 37): a study's missing-data codes and the save's rules on an item marked with one. The engine's own
 * rule (a marked item holds no value and raises nothing) is markedCode in evaluate-item.ts.
 */

export interface MissingCode {
  code: string;
  label: string;
}

/** A record's marks: item name → code (crf_data_records.missing). */
export type MissingMarks = Readonly<Record<string, string>>;

/** The codes a new study starts with (the column's default, migration 0042). */
export const DEFAULT_MISSING_CODES: readonly MissingCode[] = [
  { code: 'ND', label: '未查' },
  { code: 'NA', label: '不适用' },
  { code: 'UNK', label: '未知' },
  { code: 'ASKU', label: '拒绝回答' },
];

export const MISSING_MSG = {
  codeFormat: '缺失原因代码为1到10位大写字母、数字或下划线',
  labelLength: '缺失原因名称为1到20个字',
  duplicate: (code: string) => `缺失原因代码重复：${code}`,
  atLeastOne: '至少保留一个缺失原因',
  unknownCode: (code: string) => `缺失原因代码无效：${code}`,
  valueGiven: (label: string) => `「${label}」已标记缺失原因，不能同时填写数值`,
  notMarkable: (name: string) => `题目不能标记缺失原因：${name}`,
  hidden: (label: string) => `「${label}」按显示条件隐藏，不能标记缺失原因`,
  inUse: (code: string, count: number) => `缺失原因代码 ${code} 已被 ${count} 条记录使用，不能删除`,
} as const;

export const missingCodeSchema = z.object({
  code: z.string().regex(/^[A-Z0-9_]{1,10}$/, MISSING_MSG.codeFormat),
  label: z.string().trim().min(1, MISSING_MSG.labelLength).max(20, MISSING_MSG.labelLength),
});

/** A study's codes as a data manager sets them: 1 to 20 of them, each code once. */
export const missingCodesSchema = z
  .array(missingCodeSchema)
  .min(1, MISSING_MSG.atLeastOne)
  .max(20)
  .superRefine((codes, check) => {
    const seen = new Set<string>();
    codes.forEach(({ code }, i) => {
      if (seen.has(code)) check.addIssue({ code: 'custom', path: [i, 'code'], message: MISSING_MSG.duplicate(code) });
      seen.add(code);
    });
  });

/** PUT /api/business/study/missing_codes. */
export const missingCodesBodySchema = z.object({ studyId: rowIdSchema, codes: missingCodesSchema });
export type MissingCodesBody = z.output<typeof missingCodesBodySchema>;

/** A save's marks, as the body carries them (absent: the record keeps its marks). */
export const missingMarksSchema = z.record(z.string().max(100), z.string().max(10));

/** The text a code stands as where a value would (the audit trail's old and new value): `[缺失:ND]`. */
export const missingMarkText = (code: string) => `[缺失:${code}]`;

/** An item's value as the trail records it: its mark when marked, else its value. */
export function recordedValue(values: Readonly<Record<string, unknown>>, marks: MissingMarks, name: string): unknown {
  return Object.hasOwn(marks, name) ? missingMarkText(marks[name]!) : (values[name] ?? null);
}

/** The items whose mark differs between two mark maps (set, changed or cleared). */
export function changedMarkNames(before: MissingMarks, after: MissingMarks): string[] {
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((name) => before[name] !== after[name]);
}

/**
 * What a save is refused over its marks, before anything is written: an item that cannot be marked (unknown, a
 * row cell, a title), a code that is not one of the study's, a new mark on an item its display conditions hide, and
 * a value sent for a marked item (never dropped unseen: the writer clears one or the other). `evaluated` is the
 * engine's state for the sent values under the sent marks.
 */
export function missingMarkIssues(
  definition: CrfDefinition,
  sentValues: Readonly<Record<string, unknown>>,
  marks: MissingMarks,
  storedMarks: MissingMarks,
  codes: readonly MissingCode[],
  evaluated: FormState,
): FormIssue[] {
  const compiled = getCompiledForm(definition);
  const known = new Set(codes.map((c) => c.code));
  const issues: FormIssue[] = [];
  for (const [name, code] of Object.entries(marks)) {
    const info = compiled.byName.get(name);
    const issue = (message: string) => issues.push({ item: name, message, severity: 'error' });
    if (!info || info.rowOwner || !isValueType(info.node.type)) {
      issue(MISSING_MSG.notMarkable(name));
      continue;
    }
    const label = info.node.title || name;
    // A code the study has since removed may stay on a record it was stored on; a new one must be the study's.
    if (!known.has(code) && storedMarks[name] !== code) issue(MISSING_MSG.unknownCode(code));
    else if (!evaluated.items[info.key]?.visible) {
      if (storedMarks[name] !== code) issue(MISSING_MSG.hidden(label));
    } else if (!isEmptyValue(sentValues[name])) issue(MISSING_MSG.valueGiven(label));
  }
  return issues;
}

/** The key a mark is exported under, beside its item's value: `<item>_missing` holding the code. */
export const missingKey = (name: string) => `${name}_missing`;

/**
 * A form's export variables with a text variable `<item>_missing` right after each marked item's own (after all of a
 * multiple choice's 0/1 variables and its addition text). `marked`: the items some live record of the study marks,
 * so that every export of the study, whatever its scope, has the same columns; no column for an item never marked.
 * Every tabular format and ODM write from these variables, so all carry the code.
 */
export function withMissingVariables(
  variables: readonly ExportVariable[],
  marked: ReadonlySet<string>,
): ExportVariable[] {
  const lastOf = new Map<string, number>();
  variables.forEach((v, i) => lastOf.set(v.item, i));
  const after = new Map<number, ExportVariable[]>();
  for (const item of marked) {
    const own = lastOf.get(item);
    if (own === undefined) continue;
    const at = Math.max(own, lastOf.get(additionKey(item)) ?? -1);
    const first = variables.find((v) => v.item === item)!;
    const key = missingKey(item);
    const title = `${first.node.title || item}（缺失原因）`;
    const node: CrfNode = { name: key, title, type: 'input', option: {}, children: [] };
    after.set(at, [
      ...(after.get(at) ?? []),
      { name: statName(key), item: key, title, kind: 'text', choices: [], unit: '', node },
    ]);
  }
  return variables.flatMap((v, i) => [v, ...(after.get(i) ?? [])]);
}

/** A record's values with its marks beside them under `<item>_missing`, as the export variables read them. */
export function valuesWithMarks(
  values: Readonly<Record<string, unknown>>,
  marks: MissingMarks | null | undefined,
): Record<string, unknown> {
  const entries = Object.entries(marks ?? {});
  if (entries.length === 0) return values as Record<string, unknown>;
  return { ...values, ...Object.fromEntries(entries.map(([name, code]) => [missingKey(name), code])) };
}

/**
 * The study's code a spreadsheet cell stands for (Excel data import): the code itself (`ND`), its label (`未查`) or
 * both as the form page's menu shows them (`未查(ND)`, full-width brackets too); none: the cell is a value.
 */
export function missingCodeOfCell(cell: unknown, codes: readonly MissingCode[]): string | undefined {
  if (typeof cell !== 'string') return undefined;
  const text = cell.trim().replace(/（/g, '(').replace(/）/g, ')');
  if (text === '') return undefined;
  return codes.find((c) => text === c.code || text === c.label || text === `${c.label}(${c.code})`)?.code;
}
