import type { FastifyRequest } from 'fastify';
import { auditExportQuerySchema, crfAuditQuerySchema, idParamSchema, subjectOperatesQuerySchema } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../http/app-error.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { pageRequest } from '../../http/paging.js';
import { sendFile } from '../../http/send-file.js';
import { requireStudy } from '../../http/study-guard.js';
import type { App } from '../../http/types.js';
import { siteOfRecord } from '../../shared/patient-site.js';
import { studyOf } from '../../shared/study-of.js';
import { chainReportText, verifyAuditChains } from './audit-chain.js';
import * as auditService from './audit.service.js';

const subjectTags = ['患者'];
const crfTags = ['CRF录入'];

export function auditRoutes(app: App, ctx: AppContext) {
  const recordStudy = (v: number | undefined) => (v === undefined ? undefined : studyOf(ctx, 'subjectRecords', v));
  const dataStudy = (v: number | undefined) => (v === undefined ? undefined : studyOf(ctx, 'crfDataRecords', v));
  const q = <T>(r: FastifyRequest) => r.query as T;

  app.get(
    '/api/monitor/audit/verify',
    {
      schema: {
        tags: ['审计追踪'],
        summary: '校验全部项目的审计追踪哈希链（仅系统管理员）：每个项目的链头、第一处断链',
      },
    },
    async (request) => {
      // Every study's chain heads and break positions: a system-wide fact, for administrators only.
      if (!requireUser(request).admin) throw AppError.forbidden();
      const report = await verifyAuditChains(ctx.db);
      return ok({ ...report, text: chainReportText(report) });
    },
  );
  app.get(
    '/api/business/subjectRecord/operates',
    {
      schema: {
        tags: subjectTags,
        summary: '患者操作记录（稽查轨迹）',
        querystring: subjectOperatesQuerySchema,
      },
      config: { study: (r) => recordStudy(q<{ subjectRecordId: number }>(r).subjectRecordId) },
    },
    async (request) =>
      ok(
        await auditService.subjectHistory(
          ctx,
          requireStudy(request),
          request.query.subjectRecordId,
          pageRequest(request.query),
        ),
      ),
  );
  app.get(
    '/api/business/subjectRecord/operate',
    {
      schema: { tags: subjectTags, summary: '一条操作记录', querystring: idParamSchema },
      config: {
        study: async (r) => (await auditService.auditEvent(ctx, q<{ id: number }>(r).id))?.studyId,
        // A row about another site's patient is answered as that patient is: 404.
        site: async (r) => {
          const event = await auditService.auditEvent(ctx, q<{ id: number }>(r).id);
          return event?.subjectRecordId ? siteOfRecord(ctx.db, event.subjectRecordId) : undefined;
        },
      },
    },
    async (request) => ok(await auditService.readableEvent(ctx, requireStudy(request), request.query.id)),
  );

  app.get(
    '/api/business/crf/audit',
    {
      schema: {
        tags: crfTags,
        summary: '题目或表单的修改历史',
        querystring: crfAuditQuerySchema,
      },
      config: { study: (r) => dataStudy(q<{ crfDataRecordId: number }>(r).crfDataRecordId) },
    },
    async (request) =>
      ok(
        await auditService.recordHistory(
          ctx,
          requireStudy(request),
          request.query.crfDataRecordId,
          request.query.itemName,
        ),
      ),
  );
  app.get(
    '/api/business/audit/export',
    {
      schema: {
        tags: crfTags,
        summary:
          '导出稽查轨迹（CSV）：整个项目（监查员），或一位患者、一条表单记录、一个题目的（与页面相同的查看权限）',
        querystring: auditExportQuerySchema,
      },
      // The study of what is exported: of the record or patient when one is named, else the one given.
      config: {
        study: (r) => {
          const scope = q<{ studyId?: number; subjectRecordId?: number; crfDataRecordId?: number }>(r);
          if (scope.crfDataRecordId) return dataStudy(scope.crfDataRecordId);
          if (scope.subjectRecordId) return recordStudy(scope.subjectRecordId);
          return scope.studyId;
        },
      },
    },
    async (request, reply) => {
      const { subjectRecordId, crfDataRecordId, itemName } = request.query;
      const file = await auditService.exportAudit(ctx, requireStudy(request), {
        subjectRecordId,
        crfDataRecordId,
        itemName,
      });
      return sendFile(reply, file);
    },
  );
}
