import {
  SAFETY_MSG,
  saeExportQuerySchema,
  saeListQuerySchema,
  saeReportBodySchema,
  safetyModuleBodySchema,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { sendFile } from '../../http/send-file.js';
import { requireStudy } from '../../http/study-guard.js';
import { fromBody, fromQuery, studyIdQuery } from '../../http/study-params.js';
import type { App } from '../../http/types.js';
import { pageRequest } from '../../shared/paging.js';
import { exportReport } from './safety-export.service.js';
import * as safety from './safety.service.js';
import { announceReport } from './safety.subscriber.js';

const tags = ['不良事件'];
const module = '不良事件';
const SAFETY_KEY = 'btn:business.safety' as const;

/**
 * The safety module (issue 37). The switch is a study setting (study:config, as the other settings); the SAE
 * reports need the study's membership and 安全性报告 (btn:business.safety): a report is a safety case, read and
 * sent by the people the sponsor names for it, not by everyone who reads the AE form. Site scope is the service's
 * (a report id names no patient the guard can locate).
 */
export function safetyRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/business/safety/module',
    { schema: { tags, summary: '不良事件模块设置', querystring: studyIdQuery }, config: { study: fromQuery } },
    async (request) => ok(await safety.getModule(ctx, request.query.studyId)),
  );
  app.put(
    '/api/business/safety/module',
    {
      schema: { tags, summary: '开启或关闭不良事件模块', body: safetyModuleBodySchema },
      config: { study: fromBody, permission: 'study:config', module, action: '不良事件模块设置' },
    },
    async (request) =>
      ok(
        await safety.setModule(ctx, requireUser(request), request.body.studyId, request.body.enabled),
        request.body.enabled ? SAFETY_MSG.moduleOn : SAFETY_MSG.moduleOff,
      ),
  );
  app.get(
    '/api/business/safety/saes',
    {
      schema: { tags, summary: 'SAE报告列表', querystring: saeListQuerySchema },
      config: { study: fromQuery, studyPermission: SAFETY_KEY },
    },
    async (request) =>
      ok(await safety.listReports(ctx, requireStudy(request), request.query, pageRequest(request.query))),
  );
  app.get(
    '/api/business/safety/count',
    {
      schema: { tags, summary: '待提交的SAE报告数', querystring: studyIdQuery },
      config: { study: fromQuery, studyPermission: SAFETY_KEY },
    },
    async (request) => ok({ pending: await safety.pendingCount(ctx, requireStudy(request)) }),
  );
  app.post(
    '/api/business/safety/sae/submit',
    {
      schema: { tags, summary: '提交SAE报告', body: saeReportBodySchema },
      config: { study: fromBody, studyPermission: SAFETY_KEY, module, action: '提交SAE报告' },
    },
    async (request) =>
      ok(
        await safety.submitReport(ctx, requireUser(request), requireStudy(request), request.body.saeReportId),
        SAFETY_MSG.submitted,
      ),
  );
  app.post(
    '/api/business/safety/sae/followup',
    {
      schema: { tags, summary: '创建SAE随访报告', body: saeReportBodySchema },
      config: { study: fromBody, studyPermission: SAFETY_KEY, module, action: '创建SAE随访报告' },
    },
    async (request) => {
      const created = await safety.createFollowup(
        ctx,
        requireUser(request),
        requireStudy(request),
        request.body.saeReportId,
      );
      // A follow-up's clock starts now: its people hear of it and find its deadline in their calendar.
      await announceReport(ctx, { ...created, id: created.saeReportId });
      return ok(created, SAFETY_MSG.followupCreated);
    },
  );
  // 导出Word / 导出PDF / 导出CIOMS: one report version as a file (an audit row sae.export each time).
  app.get(
    '/api/business/safety/report/export',
    {
      schema: { tags, summary: '导出SAE报告（Word/PDF/CIOMS）', querystring: saeExportQuerySchema },
      config: { study: fromQuery, studyPermission: SAFETY_KEY },
    },
    async (request, reply) =>
      sendFile(reply, await exportReport(ctx, requireUser(request), requireStudy(request), request.query)),
  );
}
