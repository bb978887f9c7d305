import type { FastifyRequest } from 'fastify';
import { buttonKey, lockBodySchema, lockStateQuerySchema, type LockBody } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { requireStudy } from '../../http/study-guard.js';
import type { App } from '../../http/types.js';
import { siteLocators } from '../../shared/patient-site.js';
import { fromBody, fromQuery, studyIdQuery } from '../../http/study-params.js';
import { lockState } from './lock-state.js';
import * as locks from './lock.service.js';

const tags = ['锁定'];
const module = '锁定';

/**
 * Locks (数据库锁定, docs/multi-centre.md): one form record, one casebook, a site or the whole study. Setting and
 * lifting need 锁定/解锁 and a reason; every member reads what is locked.
 *
 * PUT /api/business/lock            { studyId, scope, targetId?, locked, reason }
 * GET /api/business/lock?studyId    the live locks
 * GET /api/business/lock/history?studyId   every lock, lifted ones too
 * GET /api/business/lock/state?studyId&subjectRecordId&crfDataRecordId   what holds one casebook or form now
 */
export function lockRoutes(app: App, ctx: AppContext) {
  const sites = siteLocators(ctx);
  const ofCasebook = sites.ofRecord((r: FastifyRequest) => (r.body as LockBody).targetId);
  const ofRecord = sites.ofDataRecord((r: FastifyRequest) => (r.body as LockBody).targetId);
  // The patient a casebook or form lock names is checked by the guard like any other (another site's: 404).
  const patientOf = async (request: FastifyRequest) => {
    const { scope } = request.body as LockBody;
    if (scope === 'subject') return ofCasebook(request);
    if (scope === 'record') return ofRecord(request);
    return undefined;
  };
  app.put(
    '/api/business/lock',
    {
      schema: { tags, summary: '锁定/解锁（表单、病例、中心、数据库）', body: lockBodySchema },
      config: {
        study: fromBody,
        studyPermission: buttonKey('business.lock'),
        site: patientOf,
        module,
        action: '锁定/解锁',
      },
    },
    async (request) => {
      const locked = request.body.locked;
      const result = await locks.changeLock(ctx, requireUser(request), requireStudy(request), request.body);
      return ok(result, locked ? '锁定成功' : '解锁成功');
    },
  );
  app.get(
    '/api/business/lock',
    { schema: { tags, summary: '当前锁定', querystring: studyIdQuery }, config: { study: fromQuery } },
    async (request) => ok(await locks.listLocks(ctx, requireStudy(request))),
  );
  app.get(
    '/api/business/lock/state',
    {
      schema: {
        tags,
        summary: '病例或表单当前是否锁定（页面的🔒）',
        querystring: lockStateQuerySchema,
      },
      config: { study: fromQuery },
    },
    async (request) => {
      const { studyId, subjectRecordId, crfDataRecordId } = request.query;
      return ok(await lockState(ctx, studyId, { subjectRecordId, crfDataRecordId }));
    },
  );
  app.get(
    '/api/business/lock/history',
    { schema: { tags, summary: '锁定记录（含已解锁）', querystring: studyIdQuery }, config: { study: fromQuery } },
    async (request) => ok(await locks.listLocks(ctx, requireStudy(request), true)),
  );
}
