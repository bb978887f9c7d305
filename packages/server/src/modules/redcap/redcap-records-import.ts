// content=record action=import: flat (or EAV) rows into form values, all or nothing, through redcap-save.ts.
import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import { changedItemNames, changedMarkNames, choicesOf, FORM_STATE, readChoiceList, sameValue } from '@ecrf/core';
import { fromRedcapCode } from '@ecrf/core/interop';
import type { AppContext } from '../../app-context.js';
import { crfDataRecords, subjectRecords, subjects } from '../../db/schema/index.js';
import { nodesOf } from '../study/crf-definitions.js';
import { seesSite } from '../../shared/study-access.js';
import { ApiRefusal, type ApiCaller } from './api-token.service.js';
import {
  completeColumn,
  EVENT,
  FILE_TYPES,
  RECORD_ID,
  recordsOfProject,
  refuse,
  REPEAT_INSTANCE,
  REPEAT_INSTRUMENT,
  withLiveCasebook,
  type Field,
  type Instrument,
  type Project,
  type Row,
} from './redcap-project.js';
import { ValueProblems, type ValueProblem } from './redcap-errors.js';
import { readImportDate, type DateFormat } from './redcap-dates.js';
import { inTransaction, saveThroughApi, shown } from './redcap-save.js';

export interface ImportOptions {
  overwrite: boolean;
  /** The caller's reason for changing submitted forms (our addition to REDCap's parameters). */
  reason: string | null;
  /** How dates with slashes are read (REDCap's dateFormat); default YMD. */
  dateFormat?: DateFormat;
}

interface Target {
  code: string;
  crfId: number;
  instrument: Instrument;
  /** Repeating form: the instance; list group: the row. */
  instance: number | null;
  rows: string | null;
  set: Map<string, unknown>;
  boxes: Map<string, Map<string, boolean>>;
  /** 缺失原因: items sent as one of the study's codes (REDCap's way), by item: marked, not given a value. */
  marks: Map<string, string>;
  /** Values sent for calculated items, by item: kept only when the engine's result is what was sent. */
  calculated: Map<string, { column: string; text: string }>;
  /** The form's status sent (`<form>_complete`): an import does not change it, so it must be the form's. */
  status?: { column: string; text: string };
}

/**
 * Import records (flat rows, REDCap's shape) through the same save as the form page, all or nothing:
 * every changed form is saved through the one write path (form-write.ts) in one transaction, so the engine validates it, the reason
 * rules for submitted forms hold and each changed value gets its audit row (reason API导入).
 * Unchanged forms are left alone. Answers the number of records (patients) in the data.
 */
export async function importRecords(
  ctx: AppContext,
  caller: ApiCaller,
  project: Project,
  input: Row[],
  options: ImportOptions,
): Promise<number> {
  if (input.length === 0) throw refuse('没有要导入的数据（参数 data 为空）');
  const checkboxColumns = new Map<string, { field: Field; code: string }>();
  for (const f of project.fields) {
    if (f.codes) for (const c of f.codes) checkboxColumns.set(c.column, { field: f, code: c.code });
  }
  const meta = new Set([RECORD_ID, EVENT, REPEAT_INSTRUMENT, REPEAT_INSTANCE]);
  const statusColumns = new Map(project.instruments.map((i) => [completeColumn(i.form), i]));
  const columns = new Set(input.flatMap((r) => Object.keys(r)));
  if (!columns.has(RECORD_ID)) throw refuse(`数据缺少记录标识列 ${RECORD_ID}`);
  const unknown = [...columns].filter(
    (c) => !meta.has(c) && !statusColumns.has(c) && !checkboxColumns.has(c) && !project.byVariable.get(c)?.source.item,
  );
  if (unknown.length > 0) throw refuse(`以下字段在项目中不存在或无权访问：${unknown.join(', ')}`);

  const codes = [...new Set(input.map((r) => String(r[RECORD_ID] ?? '').trim()))];
  if (codes.includes('')) throw refuse(`有数据行的 ${RECORD_ID} 为空`);
  const found = await ctx.db
    .select({ code: subjects.identificationCode, recordId: subjectRecords.id, siteId: subjects.deptId })
    .from(subjects)
    .innerJoin(subjectRecords, withLiveCasebook)
    .where(recordsOfProject(project, inArray(subjects.identificationCode, codes)));
  // Another site's patients are refused by name, nothing written (REDCap's answer to another group's records).
  const otherSites = found.filter((s) => !seesSite(project, s.siteId)).map((s) => s.code);
  if (otherSites.length > 0) {
    throw new ApiRefusal(403, `以下记录（患者编号）不在您的中心范围内：${otherSites.join(', ')}`);
  }
  const recordOf = new Map(found.map((s) => [s.code, s.recordId]));
  const missing = codes.filter((c) => !recordOf.has(c));
  if (missing.length > 0) throw refuse(`以下记录（患者编号）不存在，患者须在平台上入组：${missing.join(', ')}`);

  const targets = new Map<string, Target>();
  const targetOf = (code: string, instrument: Instrument, instance: number | null) => {
    const key = `${code}\u0000${instrument.form}\u0000${instance ?? ''}`;
    let t = targets.get(key);
    if (!t) {
      t = {
        code,
        crfId: instrument.crfId,
        instrument,
        instance,
        rows: instrument.rows,
        set: new Map(),
        boxes: new Map(),
        marks: new Map(),
        calculated: new Map(),
      };
      targets.set(key, t);
    }
    return t;
  };
  const byForm = new Map(project.instruments.map((i) => [i.form, i]));
  const codesOf = new Map(project.missingCodes.map((c) => [c.code, c.code]));
  // Refused values are gathered over all rows and reported together, as REDCap lists them.
  const problems: ValueProblem[] = [];
  input.forEach((row, index) => {
    const line = index + 1;
    const code = String(row[RECORD_ID]).trim();
    const repeatName = String(row[REPEAT_INSTRUMENT] ?? '').trim();
    let repeat: { instrument: Instrument; instance: number } | null = null;
    if (repeatName) {
      const instrument = byForm.get(repeatName);
      if (!instrument || (!instrument.repeating && !instrument.rows)) {
        throw refuse(`第${line}行：${REPEAT_INSTRUMENT} ${repeatName} 不是重复表单`);
      }
      const instance = Number(row[REPEAT_INSTANCE]);
      if (!Number.isInteger(instance) || instance < 1) throw refuse(`第${line}行：${REPEAT_INSTANCE} 应为正整数`);
      repeat = { instrument, instance };
    }
    const event = String(row[EVENT] ?? '').trim();
    if (event && !project.events.some((e) => e.name === event)) throw refuse(`第${line}行：事件 ${event} 不存在`);
    if (event && repeat && repeat.instrument.event !== event) {
      throw refuse(
        `第${line}行：重复表单 ${repeat.instrument.form} 不在事件 ${event} 中（在 ${repeat.instrument.event}）`,
      );
    }
    for (const [column, raw] of Object.entries(row)) {
      if (meta.has(column)) continue;
      const text = raw === null || raw === undefined ? '' : String(raw);
      const status = statusColumns.get(column);
      const box = checkboxColumns.get(column);
      const field = status ? null : box ? box.field : project.byVariable.get(column)!;
      const instrument = field?.instrument ?? status!;
      const problem = (message: string) => problems.push({ record: code, field: column, value: text, message });
      // A row of an event writes that event's forms (a form's data is in one event); a blank cell, or an
      // unchecked box, of another event's form is no value for it.
      if (event && instrument.event !== event) {
        if (text !== '' && !(box && text === '0')) {
          problem(`第${line}行：字段所在的表单 ${instrument.form} 不在事件 ${event} 中（在 ${instrument.event}）`);
        }
        continue;
      }
      if (repeat ? instrument !== repeat.instrument : instrument.repeating || instrument.rows) {
        if (text === '') continue;
        problem(
          repeat
            ? `第${line}行：字段不属于重复表单 ${repeat.instrument.form}`
            : `第${line}行：字段属于重复表单 ${instrument.form}，请填写 ${REPEAT_INSTRUMENT} 和 ${REPEAT_INSTANCE}`,
        );
        continue;
      }
      const target = targetOf(code, instrument, repeat?.instance ?? null);
      if (!field) {
        if (text !== '') target.status = { column, text };
        continue;
      }
      // An addition text box has no node of its own: a plain text.
      const node = field.node;
      const item = field.source.item!;
      // Rows of one record naming one field twice (two rows of one event, say) may not disagree.
      const twice = '同一记录的这个字段在数据中出现了两个不同的值';
      if (box) {
        if (text === '') continue;
        if (text !== '0' && text !== '1') {
          problem('复选框只能是 0 或 1');
          continue;
        }
        const set = target.boxes.get(item) ?? new Map<string, boolean>();
        if (set.has(box.code) && set.get(box.code) !== (text === '1')) problem(twice);
        set.set(box.code, text === '1');
        target.boxes.set(item, set);
        continue;
      }
      const put = (value: unknown) => {
        if (target.marks.has(item) || (target.set.has(item) && !sameValue(target.set.get(item), value))) problem(twice);
        else target.set.set(item, value);
      };
      if (node && FILE_TYPES.has(node.type)) {
        if (text !== '' && text !== '[document]') problem('文件字段不能作为记录数据导入（请用 content=file）');
        continue;
      }
      if (text === '') {
        if (options.overwrite) put(null);
        continue;
      }
      // 缺失原因, REDCap's way: a field holding one of the study's codes is marked with it (a list group's cells
      // cannot be marked: theirs stays a value, judged as one).
      const missingCode = target.rows ? undefined : codesOf.get(text.trim());
      if (missingCode) {
        if (target.set.has(item) || (target.marks.get(item) ?? missingCode) !== missingCode) problem(twice);
        else target.marks.set(item, missingCode);
        continue;
      }
      if (node?.option.calc) target.calculated.set(item, { column, text });
      let value = text;
      if (node && (node.type === 'date' || node.type === 'datetime')) {
        const date = readImportDate(text, options.dateFormat ?? 'YMD');
        if ('problem' in date) {
          problem(date.problem);
          continue;
        }
        value = date.value;
      }
      if (node && (node.type === 'radio' || node.type === 'select')) {
        // REDCap's code for one of ours that it would refuse (L1_2 for L1/2) reads back as ours.
        value = fromRedcapCode(node, text);
        if (!choicesOf(node.option).some((c) => c.value === value)) {
          problem('不是该字段的选项代码');
          continue;
        }
      }
      if (node?.type === 'slider') {
        const n = Number(text);
        if (Number.isFinite(n)) put(n);
        else problem('应为数字');
      } else put(value);
    }
  });

  if (problems.length > 0) throw new ValueProblems(problems);

  await inTransaction(ctx, async (txCtx) => {
    // Every form is judged by the engine before the answer, so all refused values are listed at once; any
    // refusal rolls the whole call back (a form's save is a savepoint of its own).
    for (const target of targets.values()) {
      try {
        await applyTarget(txCtx, caller, project, target, recordOf.get(target.code)!, options);
      } catch (err) {
        if (!(err instanceof ValueProblems)) throw err;
        problems.push(...err.problems);
      }
    }
    if (problems.length > 0) throw new ValueProblems(problems);
  });
  return codes.length;
}

async function applyTarget(
  ctx: AppContext,
  caller: ApiCaller,
  project: Project,
  target: Target,
  subjectRecordId: number,
  options: ImportOptions,
) {
  const records = await ctx.db
    .select()
    .from(crfDataRecords)
    .where(
      and(
        eq(crfDataRecords.subjectRecordId, subjectRecordId),
        eq(crfDataRecords.crfId, target.crfId),
        isNull(crfDataRecords.deletedAt),
      ),
    )
    .orderBy(asc(crfDataRecords.id));
  const where = `记录 ${target.code} 表单 ${target.instrument.form}${target.instance ? ` 实例 ${target.instance}` : ''}`;
  let existing = records[0];
  if (target.instrument.repeating && !target.rows) {
    existing = records[target.instance! - 1];
    if (!existing && target.instance! !== records.length + 1) {
      throw refuse(`${where}：实例编号应连续，下一个新实例为 ${records.length + 1}`);
    }
  }
  const before = existing?.values ?? {};
  const values: Record<string, unknown> = { ...before };
  const patch = (into: Record<string, unknown>) => {
    for (const [item, value] of target.set) {
      if (value === null) delete into[item];
      else into[item] = value;
    }
    for (const [item, codes] of target.boxes) {
      const node = nodesOf(target.instrument.crf).get(item);
      const chosen = new Set(readChoiceList(into[item]));
      for (const [code, on] of codes) {
        if (on) chosen.add(code);
        else chosen.delete(code);
      }
      const list = (node ? choicesOf(node.option).map((c) => c.value) : [...chosen]).filter((c) => chosen.has(c));
      into[item] = node?.type === 'multiSelect' ? list.join(',') : list;
    }
  };
  if (target.rows) {
    const list = Array.isArray(before[target.rows]) ? [...(before[target.rows] as Array<Record<string, unknown>>)] : [];
    const index = target.instance! - 1;
    if (index > list.length) throw refuse(`${where}：行号应连续，下一个新行为 ${list.length + 1}`);
    const row = { ...(list[index] ?? {}) };
    patch(row);
    list[index] = row;
    values[target.rows] = list;
  } else patch(values);
  // The record's marks as a whole (the save replaces them): a sent code marks its item and drops its value; a value
  // sent (or a blank one with overwrite) clears the item's mark, as choosing a value on the form page does.
  const marksBefore = existing?.missing ?? {};
  const marks: Record<string, string> = { ...marksBefore };
  for (const [item, value] of target.set) if (value !== null || options.overwrite) delete marks[item];
  for (const [item, codes] of target.boxes) if ([...codes.values()].some(Boolean)) delete marks[item];
  for (const [item, code] of target.marks) {
    marks[item] = code;
    delete values[item];
  }
  if (target.status) checkStatus(target, target.status, existing?.state);
  if (changedItemNames(before, values).length === 0 && changedMarkNames(marksBefore, marks).length === 0) return;
  const written = await saveThroughApi(ctx, caller, project, {
    record: target.code,
    subjectRecordId,
    crfId: target.crfId,
    form: target.instrument.form,
    existing,
    values,
    missing: marks,
    where,
    reason: options.reason,
  });
  if (target.calculated.size > 0) await checkCalculated(ctx, target, before, written.crfDataRecordId);
}

/**
 * `<form>_complete` as sent must be the form's status, raw or label (a form not started or saved is 0, a submitted
 * one 2): an import does not submit a form or take a submission back (that is the form page's, with its checks), and
 * another status is refused rather than ignored.
 */
function checkStatus(target: Target, status: { column: string; text: string }, state: number | undefined) {
  const submitted = state === FORM_STATE.submitted;
  const current = submitted ? ['2', 'Complete'] : ['0', 'Incomplete'];
  if (current.includes(status.text.trim())) return;
  throw new ValueProblems([
    {
      record: target.code,
      field: status.column,
      value: status.text,
      message: `导入不能更改表单状态（现为 ${current[0]}）：提交表单须在平台上进行`,
    },
  ]);
}

/**
 * A value sent for a calculated item stands when it is the stored one or what the engine calculated; any other is
 * refused (the whole call rolls back), never replaced unseen by the engine's result.
 */
async function checkCalculated(
  ctx: AppContext,
  target: Target,
  before: Record<string, unknown>,
  crfDataRecordId: number,
) {
  const [saved] = await ctx.db
    .select({ values: crfDataRecords.values })
    .from(crfDataRecords)
    .where(eq(crfDataRecords.id, crfDataRecordId));
  const inRow = (values: Record<string, unknown> | undefined) => {
    if (!target.rows) return values ?? {};
    const list = values?.[target.rows];
    return (
      (Array.isArray(list) ? (list[target.instance! - 1] as Record<string, unknown> | undefined) : undefined) ?? {}
    );
  };
  const [was, now] = [inRow(before), inRow(saved?.values)];
  const problems: ValueProblem[] = [];
  for (const [item, { column, text }] of target.calculated) {
    if (sameValue(text, was[item]) || sameValue(text, now[item])) continue;
    problems.push({
      record: target.code,
      field: column,
      value: text,
      message: `计算字段的值由公式算出（为 ${shown(now[item]) || '空'}），不能导入其他值`,
    });
  }
  if (problems.length > 0) throw new ValueProblems(problems);
}

/**
 * EAV rows (`record`, `field_name`, `value`, with `redcap_event_name` and `redcap_repeat_*` where the
 * project has them) into the flat rows the import reads: one row per record, event and instance. A
 * checkbox is named by its field with the chosen code as the value (as the EAV export writes it), or by
 * its export column `field___code` with 1 or 0, like a flat column.
 */
export function fromEav(project: Project, input: Row[]): Row[] {
  const rows = new Map<string, Row>();
  // A code that is not one of the checkbox's REDCap codes is a refused value: REDCap's error line, all listed.
  const problems: ValueProblem[] = [];
  input.forEach((item, index) => {
    const line = index + 1;
    const record = String(item.record ?? '').trim();
    const fieldName = String(item.field_name ?? '').trim();
    const value = item.value === null || item.value === undefined ? '' : String(item.value);
    if (!record) throw refuse(`第${line}行：EAV 数据缺少 record`);
    if (!fieldName) throw refuse(`第${line}行：EAV 数据缺少 field_name`);
    const event = String(item[EVENT] ?? '').trim();
    const repeat = String(item[REPEAT_INSTRUMENT] ?? '').trim();
    const instance = repeat ? String(item[REPEAT_INSTANCE] ?? '').trim() : '';
    const key = [record, event, repeat, instance].join('\u0000');
    let row = rows.get(key);
    if (!row) {
      row = { [RECORD_ID]: record };
      if (event) row[EVENT] = event;
      if (repeat) Object.assign(row, { [REPEAT_INSTRUMENT]: repeat, [REPEAT_INSTANCE]: instance });
      rows.set(key, row);
    }
    if (fieldName === RECORD_ID) return;
    const field = project.byVariable.get(fieldName);
    if (field?.codes) {
      if (value === '') return;
      const code = field.codes.find((c) => c.redcap === value);
      if (!code) {
        problems.push({
          record,
          field: fieldName,
          value,
          message: `第${line}行：${value} 不是复选框 ${fieldName} 的选项代码`,
        });
        return;
      }
      row[code.column] = '1';
      return;
    }
    if (Object.hasOwn(row, fieldName) && row[fieldName] !== value) {
      throw refuse(`第${line}行：记录 ${record} 的字段 ${fieldName} 出现了两个不同的值`);
    }
    row[fieldName] = value;
  });
  if (problems.length > 0) throw new ValueProblems(problems);
  return [...rows.values()];
}
