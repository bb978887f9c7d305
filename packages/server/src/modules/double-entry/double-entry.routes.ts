import {
  DOUBLE_ENTRY_MSG,
  doubleEntryConfigBodySchema,
  doubleEntryDoneBodySchema,
  doubleEntryPendingQuerySchema,
  doubleEntryQuerySchema,
  doubleEntryReconcileBodySchema,
  doubleEntrySaveBodySchema,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { pageRequest } from '../../http/paging.js';
import { requireStudy } from '../../http/study-guard.js';
import { fromBody, fromQuery, studyIdQuery } from '../../http/study-params.js';
import type { App } from '../../http/types.js';
import { listPairs } from './double-entry-pending.service.js';
import * as doubleEntry from './double-entry.service.js';

const tags = ['双份录入'];
const module = '双份录入';

/**
 * 双份录入 (issue 37). Every route names its study and the patient's subjectRecordId, so the study guard answers a
 * patient of another site 404 before the service runs; the form's save permission, 双录入核对 and the locks are the
 * service's (they depend on the form and on who typed which entry).
 */
export function doubleEntryRoutes(app: App, ctx: AppContext) {
  app.put(
    '/api/business/study/crf/double_entry',
    {
      schema: { tags, summary: '设置表单为双份录入', body: doubleEntryConfigBodySchema },
      // Who configures the study's CRFs (CRF管理) sets a form to double entry.
      config: { study: fromBody, permission: 'study:crf', module, action: '设置双份录入' },
    },
    async (request) => {
      await doubleEntry.setDoubleEntry(ctx, requireUser(request), requireStudy(request), request.body);
      return ok(null, DOUBLE_ENTRY_MSG.configured);
    },
  );
  app.get(
    '/api/business/study/crf/double_entry',
    {
      schema: { tags, summary: '设置为双份录入的表单', querystring: studyIdQuery },
      config: { study: fromQuery },
    },
    async (request) => ok(await doubleEntry.doubleEntryForms(ctx, requireStudy(request))),
  );
  app.get(
    '/api/business/double-entry/entry',
    {
      schema: { tags, summary: '我的录入（双份录入，另一次录入不可见）', querystring: doubleEntryQuerySchema },
      config: { study: fromQuery },
    },
    async (request) => ok(await doubleEntry.myEntry(ctx, requireUser(request), requireStudy(request), request.query)),
  );
  app.put(
    '/api/business/double-entry/entry',
    {
      schema: { tags, summary: '保存我的录入', body: doubleEntrySaveBodySchema },
      config: { study: fromBody, module, action: '保存录入' },
    },
    async (request) =>
      ok(
        await doubleEntry.saveEntry(ctx, requireUser(request), requireStudy(request), request.body),
        DOUBLE_ENTRY_MSG.saved,
      ),
  );
  app.post(
    '/api/business/double-entry/done',
    {
      schema: { tags, summary: '完成我的录入', body: doubleEntryDoneBodySchema },
      config: { study: fromBody, module, action: '完成录入' },
    },
    async (request) =>
      ok(
        await doubleEntry.markDone(ctx, requireUser(request), requireStudy(request), request.body),
        DOUBLE_ENTRY_MSG.done,
      ),
  );
  app.get(
    '/api/business/double-entry/compare',
    {
      schema: { tags, summary: '双录入核对：两次录入对照与差异', querystring: doubleEntryQuerySchema },
      config: { study: fromQuery, studyPermission: 'btn:business.doubleEntry.reconcile' },
    },
    async (request) => ok(await doubleEntry.compare(ctx, requireUser(request), requireStudy(request), request.query)),
  );
  app.get(
    '/api/business/double-entry/pending',
    {
      schema: { tags, summary: '双录入核对：本研究的双份录入列表', querystring: doubleEntryPendingQuerySchema },
      config: { study: fromQuery, studyPermission: 'btn:business.doubleEntry.reconcile' },
    },
    async (request) => ok(await listPairs(ctx, requireStudy(request), request.query, pageRequest(request.query))),
  );
  app.post(
    '/api/business/double-entry/reconcile',
    {
      schema: { tags, summary: '双录入核对：逐项决定差异并写入表单', body: doubleEntryReconcileBodySchema },
      config: {
        study: fromBody,
        studyPermission: 'btn:business.doubleEntry.reconcile',
        module,
        action: '双录入核对',
      },
    },
    async (request) =>
      ok(
        await doubleEntry.reconcile(ctx, requireUser(request), requireStudy(request), request.body),
        DOUBLE_ENTRY_MSG.reconciled,
      ),
  );
}
