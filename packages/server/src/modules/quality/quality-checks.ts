import {
  EDIT_CHECK_RULE_PREFIX,
  evaluateForm,
  genderFromPatient,
  isMissingRequired,
  isRowType,
  overridesFromUsed,
  QUALITY_RULE,
  type CrfDefinition,
  type CrfNode,
  type EvaluationContext,
  type FormIssue,
  type FormState,
} from '@ecrf/core';
import { nodesOf } from '../study/crf-definitions.js';

/**
 * The rules of a data quality run (数据核查) over one stored record, pure. The engine judges the record exactly as
 * a save would (evaluateForm with the save's time, the study's zone, the patient's sex and the other forms' values);
 * this file only sorts the engine's verdict into rules and words each finding as the query raised from it will say
 * it. The one rule of its own is the cross-form date rule (a visit form's date before the patient's enrolment).
 */

/** One finding of a record, before the run adds its ids. */
export interface RecordFinding {
  /** A row cell's finding names its list group or table: a query is raised on the group. */
  itemName: string;
  ruleKey: string;
  ruleText: string;
}

export interface StoredRecord {
  crfId: number;
  values: Record<string, unknown>;
  /** 缺失原因: items marked with a missing-data code hold no value and raise nothing. */
  missing: Record<string, string>;
  /** The time of the last save: the engine's "now" for it, as the system queries judge it. */
  updatedAt: Date;
  gender: number | null;
  /** 参考范围: the ranges the last save judged by (crf_data_records.lab_ranges); its site ones judge again. */
  labRanges?: Record<string, unknown>;
}

const titleOf = (definition: CrfDefinition, name: string) => nodesOf(definition).get(name)?.title || name;

/** An edit check of the item whose message the engine gave: its place in the item's checks names the rule. */
function editCheckRule(definition: CrfDefinition, crfId: number, issue: FormIssue): RecordFinding | null {
  const checks = nodesOf(definition).get(issue.item)?.option.checks ?? [];
  const index = checks.findIndex((c) => c.message === issue.message);
  if (index < 0) return null;
  return {
    itemName: issue.container ?? issue.item,
    ruleKey: `${EDIT_CHECK_RULE_PREFIX}${crfId}:${issue.item}:${index}`,
    ruleText: issue.message,
  };
}

/** Where an issue sits, in words: the item's title, or the group's row and the cell's title. */
function placeOf(definition: CrfDefinition, issue: FormIssue) {
  const item = titleOf(definition, issue.item);
  if (issue.container === undefined) return item;
  return `${titleOf(definition, issue.container)}第${(issue.row ?? 0) + 1}行${item}`;
}

/** Sorts the engine's verdict on one record into findings, one per issue. */
export function findingsOfState(
  definition: CrfDefinition,
  record: Pick<StoredRecord, 'crfId' | 'missing'>,
  state: FormState,
): RecordFinding[] {
  const out: RecordFinding[] = [];
  for (const issue of [...state.errors, ...state.warnings]) {
    // A missing-data code stands for the value (the engine says so itself once it reads the marks).
    if (issue.container === undefined && record.missing[issue.item] !== undefined) continue;
    const place = placeOf(definition, issue);
    const itemName = issue.container ?? issue.item;
    if (issue.severity === 'error' && isMissingRequired(state, issue)) {
      out.push({ itemName, ruleKey: QUALITY_RULE.required, ruleText: `${place}：必填项未填写，请补充` });
      continue;
    }
    const check = editCheckRule(definition, record.crfId, issue);
    if (check) out.push(check);
    else out.push({ itemName, ruleKey: QUALITY_RULE.invalid, ruleText: `${place}：${issue.message}` });
  }
  // Reference ranges, worded as the system queries word them.
  for (const [name, item] of Object.entries(state.items)) {
    if (!item.visible || !item.range || record.missing[name] !== undefined) continue;
    out.push({
      itemName: name,
      ruleKey: QUALITY_RULE.range,
      ruleText: `${titleOf(definition, name)}${item.range === 'low' ? '低于' : '高于'}参考范围，请核实`,
    });
  }
  return out;
}

/** The engine's verdict on a stored record, judged as its last save was. */
export function evaluateStored(
  definition: CrfDefinition,
  record: StoredRecord,
  timeZone: string,
  forms: Record<string, Record<string, unknown>>,
): FormState {
  // The marks go to the engine as data (it skips a marked item); a typed variable, so an engine without the field
  // still compiles.
  const context: EvaluationContext & { missing?: Record<string, string> } = {
    now: record.updatedAt,
    timeZone,
    gender: genderFromPatient(record.gender),
    forms,
    missing: record.missing,
    referenceRanges: overridesFromUsed(record.labRanges),
  };
  return evaluateForm(definition, record.values, context);
}

const DATE_TYPES: ReadonlySet<string> = new Set(['date', 'datetime']);
const DATE_PREFIX = /^(\d{4}-\d{2}-\d{2})/;

/** The form's top-level date and date-time items (row cells are left out: kept simple, docs/data-quality.md). */
export function dateItemsOf(definition: CrfDefinition): CrfNode[] {
  const out: CrfNode[] = [];
  const walk = (nodes: readonly CrfNode[]) => {
    for (const node of nodes) {
      if (isRowType(node.type)) continue;
      if (node.name && DATE_TYPES.has(node.type)) out.push(node);
      walk(node.children ?? []);
    }
  };
  walk(definition.children);
  return out;
}

/**
 * The cross-form rule: a date of a visit form (a repeatable form, or a record filled for a follow-up visit) before
 * the patient's enrolment date (入组日期, the day the patient was added, in the study's zone) cannot be a visit of
 * this study. Blank and partial values are left alone.
 */
export function visitBeforeEnrolment(
  definition: CrfDefinition,
  record: Pick<StoredRecord, 'values' | 'missing'>,
  enrolDate: string,
): RecordFinding[] {
  const out: RecordFinding[] = [];
  for (const node of dateItemsOf(definition)) {
    if (record.missing[node.name] !== undefined) continue;
    const value = record.values[node.name];
    const day = typeof value === 'string' ? DATE_PREFIX.exec(value)?.[1] : undefined;
    if (day !== undefined && day < enrolDate) {
      out.push({
        itemName: node.name,
        ruleKey: QUALITY_RULE.visitBeforeEnrolment,
        ruleText: `${node.title || node.name}（${day}）早于入组日期（${enrolDate}），请核实`,
      });
    }
  }
  return out;
}

/** The finding of each patient of a duplicate group (same name and birth date). */
export const DUPLICATE_TEXT = '姓名与出生日期与本项目其他患者相同，疑似重复录入，请核实';
