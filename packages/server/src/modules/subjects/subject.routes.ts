import type { FastifyRequest } from 'fastify';
import {
  idParamSchema,
  subjectCodeQuerySchema,
  subjectCreateBodySchema,
  subjectRecordDeleteQuerySchema,
  subjectRecordIdQuerySchema,
  subjectRecordListBodySchema,
  subjectRecordListQuerySchema,
  subjectRecordRestoreBodySchema,
  subjectRecordStateBodySchema,
  subjectSignBodySchema,
  subjectSiteMoveBodySchema,
  subjectUpdateBodySchema,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { pageRequest } from '../../http/paging.js';
import { hasStudyPermission, requireStudy } from '../../http/study-guard.js';
import type { App } from '../../http/types.js';
import { studyOf } from '../../shared/study-of.js';
import { AppError } from '../../http/app-error.js';
import { siteLocators } from '../../shared/patient-site.js';
import { ALL_SITES_KEY } from '../../shared/study-access.js';
import { fromBody, fromParam, fromQuery, studyIdQuery } from '../../http/study-params.js';
import { createSubject, isCodeTaken, subjectFormModel, updateSubject } from './subject-edit.service.js';
import { listRecords, recordColumns } from './subject-list.service.js';
import { deleteRecord, moveSubjectSite, setRecordState, signRecord } from './subject-record.service.js';
import * as subjectsService from './subject.service.js';

const subjectTags = ['患者'];

export function subjectRoutes(app: App, ctx: AppContext) {
  const recordStudy = (v: number | undefined) => (v === undefined ? undefined : studyOf(ctx, 'subjectRecords', v));
  const b = <T>(r: FastifyRequest) => r.body as T;
  // The study of the patient record a request names as `subjectRecordId`, in its body or in its query.
  const recordInBody = (r: FastifyRequest) => recordStudy(b<{ subjectRecordId?: number }>(r).subjectRecordId);
  const recordInQuery = (r: FastifyRequest) => recordStudy((r.query as { subjectRecordId?: number }).subjectRecordId);
  const sites = siteLocators(ctx);

  app.get(
    '/api/v2/business/subject/crf',
    {
      schema: { tags: subjectTags, summary: '患者表单模型（基础信息配置）', querystring: studyIdQuery },
      config: { study: fromQuery },
    },
    async (request) => ok(await subjectFormModel(ctx, request.query.studyId)),
  );
  app.get(
    '/api/business/subject/unique',
    {
      schema: {
        tags: subjectTags,
        summary: '编号是否已存在',
        querystring: subjectCodeQuerySchema,
      },
      config: { study: fromQuery },
    },
    async (request) => ok(await isCodeTaken(ctx.db, request.query.studyId, request.query.identificationCode)),
  );
  app.post(
    '/api/business/subject',
    {
      schema: { tags: subjectTags, summary: '添加患者', body: subjectCreateBodySchema },
      config: { study: fromBody, module: '患者管理', action: '新增', studyPermission: 'btn:business.subject.add' },
    },
    async (request) =>
      ok(
        await createSubject(ctx, requireUser(request), requireStudy(request), request.body.studyId, request.body),
        '添加成功',
      ),
  );
  app.put(
    '/api/business/subject',
    {
      // Partial: a field left out of the body keeps its stored value.
      schema: {
        tags: subjectTags,
        summary: '编辑患者',
        body: subjectUpdateBodySchema,
      },
      config: {
        study: (r) => studyOf(ctx, 'subjects', b<{ id: number }>(r).id),
        site: sites.ofSubject((r: FastifyRequest) => b<{ id: number }>(r).id),
        module: '患者管理',
        action: '修改',
        studyPermission: 'btn:business.subject.edit',
      },
    },
    async (request) =>
      ok(
        await updateSubject(ctx, requireUser(request), requireStudy(request), request.body.id, request.body),
        '修改成功',
      ),
  );
  app.put(
    '/api/business/subject/site',
    {
      schema: {
        tags: subjectTags,
        summary: '转移中心（管理员）：患者转到另一中心，需填写原因',
        body: subjectSiteMoveBodySchema,
      },
      config: {
        study: (r) => studyOf(ctx, 'subjects', b<{ subjectId: number }>(r).subjectId),
        module: '患者管理',
        action: '转移中心',
        studyPermission: ALL_SITES_KEY,
      },
    },
    async (request) => {
      const access = requireStudy(request);
      // A manager's act: seeing every site, and the patient edit's own permission.
      if (!hasStudyPermission(access, 'btn:business.subject.edit')) throw AppError.forbidden();
      return ok(
        await moveSubjectSite(
          ctx,
          requireUser(request),
          access,
          request.body.subjectId,
          request.body.deptId,
          request.body.reason,
        ),
        '转移成功',
      );
    },
  );
  app.get(
    '/api/business/subject/signatures',
    {
      schema: { tags: subjectTags, summary: '患者签名记录', querystring: subjectRecordIdQuerySchema },
      config: { study: recordInQuery },
    },
    async (request) => ok(await subjectsService.listSignatures(ctx, request.query.subjectRecordId)),
  );
  app.get(
    '/api/business/subject/:id',
    {
      schema: { tags: subjectTags, summary: '患者详情', params: idParamSchema },
      config: {
        study: (r) => studyOf(ctx, 'subjects', fromParam(r)!),
        site: sites.ofSubject(fromParam),
      },
    },
    async (request) => ok(await subjectsService.getSubject(ctx, request.params.id, requireStudy(request))),
  );
  app.get(
    '/api/business/ducking/patientInfo/:id',
    {
      schema: { tags: subjectTags, summary: '患者信息（按受试者记录）', params: idParamSchema },
      config: { study: (r) => recordStudy(fromParam(r)), site: sites.ofRecord(fromParam) },
    },
    async (request) => ok(await subjectsService.getSubjectByRecord(ctx, request.params.id, requireStudy(request))),
  );
  app.put(
    '/api/v1/business/subject/sign',
    {
      schema: {
        tags: subjectTags,
        summary: '研究者电子签名',
        body: subjectSignBodySchema,
      },
      config: {
        study: recordInBody,
        module: '患者管理',
        action: '签名',
        studyPermission: 'btn:business.crf.sign',
      },
    },
    async (request) =>
      ok(
        await signRecord(
          ctx,
          requireUser(request),
          requireStudy(request),
          request.body.subjectRecordId,
          request.body.password,
          request.body.meaning,
        ),
        '签名成功',
      ),
  );

  app.post(
    '/api/v3/business/subjectRecord/list',
    {
      schema: {
        tags: subjectTags,
        summary: '患者列表（v3）',
        body: subjectRecordListBodySchema,
      },
      config: { study: fromBody, readOnly: true },
    },
    async (request) =>
      ok(await listRecords(ctx, request.body.studyId, request.body, pageRequest(request.body), requireStudy(request))),
  );
  for (const version of ['v1', 'v2'] as const) {
    app.get(
      `/api/${version}/business/subjectRecord/list`,
      {
        schema: {
          tags: subjectTags,
          summary: `患者列表（${version}）`,
          querystring: subjectRecordListQuerySchema,
        },
        config: { study: fromQuery },
      },
      async (request) =>
        ok(
          await listRecords(
            ctx,
            request.query.studyId,
            request.query,
            pageRequest(request.query),
            requireStudy(request),
          ),
        ),
    );
  }
  for (const version of ['v1', 'v2', 'v3'] as const) {
    app.get(
      `/api/${version}/business/subjectRecord/columns`,
      {
        schema: { tags: subjectTags, summary: `患者列表列（${version}）`, querystring: studyIdQuery },
        config: { study: fromQuery },
      },
      async (request) => ok(await recordColumns(ctx, request.query.studyId)),
    );
  }
  app.put(
    '/api/business/subjectRecord/state',
    {
      schema: {
        tags: subjectTags,
        summary: '修改受试者状态（0 在组 1 完成 2 退出）',
        body: subjectRecordStateBodySchema,
      },
      config: {
        study: recordInBody,
        module: '患者管理',
        action: '修改状态',
        studyPermission: 'btn:business.subject.edit',
      },
    },
    async (request) => {
      await setRecordState(
        ctx,
        requireUser(request),
        requireStudy(request),
        request.body.subjectRecordId,
        request.body.state,
        request.body.reason,
      );
      return ok(null, '操作成功');
    },
  );
  app.delete(
    '/api/business/subjectRecord',
    {
      schema: {
        tags: subjectTags,
        summary: '删除患者（可恢复）',
        querystring: subjectRecordDeleteQuerySchema,
      },
      config: {
        study: recordInQuery,
        module: '患者管理',
        action: '删除',
        studyPermission: 'btn:business.subject.remove',
      },
    },
    async (request) => {
      await deleteRecord(
        ctx,
        requireUser(request),
        requireStudy(request),
        request.query.subjectRecordId,
        request.query.reason,
      );
      return ok(null, '删除成功');
    },
  );
  app.put(
    '/api/business/subjectRecord/restore',
    {
      schema: {
        tags: subjectTags,
        summary: '恢复已删除的患者',
        body: subjectRecordRestoreBodySchema,
      },
      config: {
        study: recordInBody,
        module: '患者管理',
        action: '恢复',
        studyPermission: 'btn:business.subject.remove',
      },
    },
    async (request) => {
      await deleteRecord(
        ctx,
        requireUser(request),
        requireStudy(request),
        request.body.subjectRecordId,
        request.body.reason,
        true,
      );
      return ok(null, '恢复成功');
    },
  );
}
