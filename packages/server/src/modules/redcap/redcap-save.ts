// The one way an API call changes a form (record and file imports, file deletes): the form page's save, in one
// transaction per call.
import { FORM_STATE } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { AppError } from '../../shared/app-error.js';
import { can } from '../crf-data/crf-data.service.js';
import { saveForm } from '../crf-data/form-write.js';
import { ApiRefusal, type ApiCaller } from './api-token.service.js';
import { ValueProblems, type ValueProblem } from './redcap-errors.js';
import { refuse, type Project } from './redcap-project.js';

/** Every imported value's audit reason (a caller's own reason is added for submitted forms). */
export const API_IMPORT_REASON = 'API导入';

/** All of an API call's saves in one transaction, whose events commit with it: nothing to wait for before the answer. */
export function inTransaction<T>(ctx: AppContext, work: (txCtx: AppContext) => Promise<T>): Promise<T> {
  return ctx.db.transaction(async (tx) => {
    const events = Object.assign(Object.create(ctx.events) as AppContext['events'], {
      delivered: () => Promise.resolve(false),
    });
    return work({ ...ctx, db: tx as unknown as Db, events });
  });
}

interface FormChange {
  /** The record (patient code) whose form it is: REDCap's first column of a refused value. */
  record: string;
  subjectRecordId: number;
  crfId: number;
  form: string;
  existing: { id: number; version: number; state: number } | undefined;
  values: Record<string, unknown>;
  /** 缺失原因: the record's marks after the change (the save replaces the stored ones); absent, they stay. */
  missing?: Record<string, string>;
  where: string;
  reason: string | null;
}

/** A stored value as one REDCap cell: a list's items joined by commas, an object as JSON. */
export const shown = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(shown).join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value as string | number | boolean);
};

/** The engine's objections to a form's values, as REDCap's lines: the field by its export name, the value sent. */
function problemsOf(
  project: Project,
  change: FormChange,
  issues: ReadonlyArray<{ itemName: string; groupName?: string | null; groupIndex?: number | null; message: string }>,
): ValueProblem[] {
  return issues.map((issue) => {
    const group = issue.groupName ?? null;
    const field = project.fields.find(
      (f) => f.instrument.crfId === change.crfId && f.source.item === issue.itemName && f.instrument.rows === group,
    );
    const rows = group ? change.values[group] : null;
    const value = Array.isArray(rows)
      ? (rows[issue.groupIndex ?? 0] as Record<string, unknown> | undefined)?.[issue.itemName]
      : change.values[issue.itemName];
    return {
      record: change.record,
      field: field?.row.variable ?? issue.itemName,
      value: shown(value),
      message: issue.message,
    };
  });
}

/**
 * One form changed by an API call, through the one write path (form-write.ts) as the form page's save: its permission, the engine's verdict,
 * an audit row per changed value with reason API导入, and for a submitted form the caller's own reason.
 */
export async function saveThroughApi(ctx: AppContext, caller: ApiCaller, project: Project, change: FormChange) {
  const { existing, where } = change;
  if (!can(caller.access, change.crfId, 'save')) {
    throw new ApiRefusal(403, `您没有修改表单 ${change.form} 的权限`);
  }
  const submitted = existing?.state === FORM_STATE.submitted;
  // A submitted form changes only with a reason from the person, as on the form page; a fixed text is not one.
  const reason = submitted ? (change.reason ? `${API_IMPORT_REASON}：${change.reason}` : null) : API_IMPORT_REASON;
  try {
    return await saveForm(
      ctx,
      { kind: 'staff', user: caller.user, access: caller.access },
      {
        subjectRecordId: change.subjectRecordId,
        crfId: change.crfId,
        crfDataRecordId: existing?.id ?? null,
        version: existing?.version ?? 0,
        values: change.values,
        ...(change.missing ? { missing: change.missing } : {}),
        reason,
      },
    );
  } catch (err) {
    if (err instanceof AppError) {
      if (err.code === 'crf.reason_required') {
        throw refuse(`${where}：表单已提交，修改需要填写修改原因（参数 reason）`);
      }
      const issues = (err.data as { errors?: Parameters<typeof problemsOf>[2] } | null)?.errors ?? [];
      if (issues.length > 0) throw new ValueProblems(problemsOf(project, change, issues));
      throw refuse(`${where}：${err.message}`);
    }
    throw err;
  }
}
