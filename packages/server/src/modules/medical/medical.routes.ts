import type { FastifyRequest } from 'fastify';
import {
  idParamSchema,
  medicalBodySchema,
  medicalDeleteQuerySchema,
  medicalEditBodySchema,
  medicalFileQuerySchema,
  medicalLinkableQuerySchema,
  medicalLinkCrfBodySchema,
  medicalListQuerySchema,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { pageRequest } from '../../http/paging.js';
import { requireStudy } from '../../http/study-guard.js';
import type { App } from '../../http/types.js';
import { siteLocators } from '../../shared/patient-site.js';
import { servingHeaders } from '../files/file.service.js';
import { fromBody, fromParam, fromQuery, studyIdQuery } from '../../http/study-params.js';
import * as medical from './medical.service.js';

const tags = ['病历管理'];
const module = '病历管理';

/**
 * Medical records (病历管理, platform §7: medicals, PUT /api/v1/medical/crf). Clinical data: reading needs
 * 查看病历资料, changes 编辑病历资料, each change audited on the patient's casebook with the reason for an edit
 * or a deletion; patients' names are masked as in every list for a caller without 查看患者身份信息.
 *
 * GET    /api/v1/medicals?studyId&subjectId&crfDataRecordId&keyword&pageNum&pageSize
 * GET    /api/v1/medical/{id}?studyId
 * POST   /api/v1/medical            { studyId, subjectId, title, category, visitDate, hospital, note, files }
 * PUT    /api/v1/medical/crf        { studyId, id, crfDataRecordId | null, reason? }
 * PUT    /api/v1/medical/{id}       { …fields, reason }
 * DELETE /api/v1/medical/{id}?studyId&reason
 * GET    /api/v1/medical/{id}/file?studyId&fileKey
 */
export function medicalRoutes(app: App, ctx: AppContext) {
  const view = { study: fromQuery, studyPermission: medical.MEDICAL_VIEW };
  // A medical record of a patient at another site answers 404 to a caller scoped to other sites (分中心).
  const sites = siteLocators(ctx);
  const site = sites.ofMedicalRecord(fromParam);
  const viewOne = { ...view, site };
  app.get(
    '/api/v1/medicals',
    { schema: { tags, summary: '病历资料（分页）', querystring: medicalListQuerySchema }, config: view },
    async (request) => {
      const q = request.query;
      return ok(
        await medical.listMedicals(
          ctx,
          requireStudy(request),
          { subjectId: q.subjectId, crfDataRecordId: q.crfDataRecordId, keyword: q.keyword },
          pageRequest(q),
        ),
      );
    },
  );
  app.get(
    '/api/v1/medical/crfs',
    {
      schema: {
        tags,
        summary: '患者可关联的表单记录',
        querystring: medicalLinkableQuerySchema,
      },
      config: view,
    },
    async (request) => ok(await medical.linkableRecords(ctx, requireStudy(request), request.query.subjectId)),
  );
  app.get(
    '/api/v1/medical/:id',
    { schema: { tags, summary: '病历资料详情', params: idParamSchema, querystring: studyIdQuery }, config: viewOne },
    async (request) => ok(await medical.getMedical(ctx, requireStudy(request), request.params.id)),
  );
  app.get(
    '/api/v1/medical/:id/file',
    {
      schema: { tags, summary: '病历资料文件', params: idParamSchema, querystring: medicalFileQuerySchema },
      config: viewOne,
    },
    async (request, reply) => {
      const { row, stream } = await medical.medicalFile(
        ctx,
        requireStudy(request),
        request.params.id,
        request.query.fileKey,
      );
      return reply
        .headers(servingHeaders(row.contentType, row.fileName))
        .header('content-length', row.size)
        .send(stream);
    },
  );
  app.post(
    '/api/v1/medical',
    {
      schema: { tags, summary: '新增病历资料', body: medicalBodySchema },
      config: { study: fromBody, studyPermission: medical.MEDICAL_EDIT, module, action: '新增病历资料' },
    },
    async (request) =>
      ok(await medical.createMedical(ctx, requireUser(request), requireStudy(request), request.body), '新增成功'),
  );
  app.put(
    '/api/v1/medical/crf',
    {
      schema: {
        tags,
        summary: '关联表单记录（源文件）',
        body: medicalLinkCrfBodySchema,
      },
      config: {
        study: fromBody,
        studyPermission: medical.MEDICAL_EDIT,
        module,
        action: '关联源文件',
        site: sites.ofMedicalRecord((r: FastifyRequest) => (r.body as { id?: number } | undefined)?.id),
      },
    },
    async (request) => {
      const b = request.body;
      return ok(
        await medical.linkCrf(
          ctx,
          requireUser(request),
          requireStudy(request),
          b.id,
          b.crfDataRecordId,
          b.reason?.trim() ? b.reason.trim() : null,
        ),
        '操作成功',
      );
    },
  );
  app.put(
    '/api/v1/medical/:id',
    {
      schema: { tags, summary: '修改病历资料', params: idParamSchema, body: medicalEditBodySchema },
      config: { study: fromBody, studyPermission: medical.MEDICAL_EDIT, module, action: '修改病历资料', site },
    },
    async (request) => {
      const { reason: why, ...input } = request.body;
      return ok(
        await medical.updateMedical(ctx, requireUser(request), requireStudy(request), request.params.id, input, why),
        '修改成功',
      );
    },
  );
  app.delete(
    '/api/v1/medical/:id',
    {
      schema: { tags, summary: '删除病历资料', params: idParamSchema, querystring: medicalDeleteQuerySchema },
      config: { study: fromQuery, studyPermission: medical.MEDICAL_EDIT, module, action: '删除病历资料', site },
    },
    async (request) => {
      await medical.deleteMedical(
        ctx,
        requireUser(request),
        requireStudy(request),
        request.params.id,
        request.query.reason,
      );
      return ok(null, '删除成功');
    },
  );
}
