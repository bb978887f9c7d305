// The one way an API call changes a form (record and file imports, file deletes): the form page's save, in one
// transaction per call.
import { FORM_STATE } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { AppError } from '../../shared/app-error.js';
import { can } from '../crf-data/crf-data.service.js';
import { saveForm } from '../crf-data/form-write.js';
import { ApiRefusal, type ApiCaller } from './api-token.service.js';
import { refuse } from './redcap-project.js';

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

/**
 * One form changed by an API call, through the one write path (form-write.ts) as the form page's save: its permission, the engine's verdict,
 * an audit row per changed value with reason API导入, and for a submitted form the caller's own reason.
 */
export async function saveThroughApi(
  ctx: AppContext,
  caller: ApiCaller,
  change: {
    subjectRecordId: number;
    crfId: number;
    form: string;
    existing: { id: number; version: number; state: number } | undefined;
    values: Record<string, unknown>;
    where: string;
    reason: string | null;
  },
) {
  const { existing, where } = change;
  if (!can(caller.access, change.crfId, 'save')) {
    throw new ApiRefusal(403, `您没有修改表单 ${change.form} 的权限`);
  }
  const submitted = existing?.state === FORM_STATE.submitted;
  // A submitted form changes only with a reason from the person, as on the form page; a fixed text is not one.
  const reason = submitted ? (change.reason ? `${API_IMPORT_REASON}：${change.reason}` : null) : API_IMPORT_REASON;
  try {
    await saveForm(
      ctx,
      { kind: 'staff', user: caller.user, access: caller.access },
      {
        subjectRecordId: change.subjectRecordId,
        crfId: change.crfId,
        crfDataRecordId: existing?.id ?? null,
        version: existing?.version ?? 0,
        values: change.values,
        reason,
      },
    );
  } catch (err) {
    if (err instanceof AppError) {
      if (err.code === 'crf.reason_required') {
        throw refuse(`${where}：表单已提交，修改需要填写修改原因（参数 reason）`);
      }
      const issues = (err.data as { errors?: Array<{ itemName: string; message: string }> } | null)?.errors ?? [];
      const detail = issues.map((i) => `${i.itemName}：${i.message}`).join('；');
      throw refuse(`${where}：${err.message}${detail ? `（${detail}）` : ''}`);
    }
    throw err;
  }
}
