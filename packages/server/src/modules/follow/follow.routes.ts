import type { FastifyRequest } from 'fastify';
import {
  customVisitBodySchema,
  followDateChangeBodySchema,
  followPlanBodySchema,
  followPlanDeleteQuerySchema,
  followPlanListQuerySchema,
  followPlanUpdateBodySchema,
  followRecordCrfIdQuerySchema,
  followRecordCrfQuerySchema,
  followRecordDeleteQuerySchema,
  followRecordIdQuerySchema,
  followRecordQuerySchema,
  followRecordStatusBodySchema,
  followScheduleBodySchema,
  idParamSchema,
  studyIdQuerySchema,
  subjectRecordIdQuerySchema,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { pageRequest } from '../../http/paging.js';
import { requireStudy } from '../../http/study-guard.js';
import type { App } from '../../http/types.js';
import { fromBody, fromParam, fromQuery } from '../../http/study-params.js';
import { studyOf } from '../../shared/study-of.js';
import * as follow from './follow-record.service.js';
import * as plans from './follow-plan.service.js';
import { scheduleSubjectNow } from './follow-schedule.service.js';
import { followOverview } from './follow-overview.js';
import { followDraftRoutes } from './follow-draft.routes.js';

const tags = ['随访'];
const module = '随访管理';
const PLAN = 'btn:business.follow.plan';
const RECORD = 'btn:business.follow.record';

export function followRoutes(app: App, ctx: AppContext) {
  const ofPlan = (v: number | undefined) => (v === undefined ? undefined : studyOf(ctx, 'followPlans', v));
  const ofRecord = (v: number | undefined) => (v === undefined ? undefined : studyOf(ctx, 'followRecords', v));
  const ofSubjectRecord = (v: number | undefined) => (v === undefined ? undefined : studyOf(ctx, 'subjectRecords', v));
  const body = <T>(r: FastifyRequest) => (r.body ?? {}) as Partial<T>;
  const query = <T>(r: FastifyRequest) => r.query as Partial<T>;

  // ---- plans (随访计划)
  app.get(
    '/api/business/follows',
    {
      schema: {
        tags,
        summary: '随访计划列表（分页）',
        querystring: followPlanListQuerySchema,
      },
      config: { study: fromQuery },
    },
    async (request) =>
      ok(await plans.listPlans(ctx, request.query.studyId, pageRequest(request.query), request.query.planName)),
  );
  app.get(
    '/api/business/follow/crfs',
    {
      schema: { tags, summary: '可选的随访表单', querystring: studyIdQuerySchema },
      config: { study: fromQuery },
    },
    async (request) => ok(await plans.followCrfs(ctx, request.query.studyId)),
  );
  app.get(
    '/api/business/follow/records',
    {
      schema: {
        tags,
        summary: '随访记录（分页；按状态、日期范围、负责人、患者筛选）',
        querystring: followRecordQuerySchema,
      },
      config: { study: fromQuery },
    },
    async (request) => {
      const { pageNum: _p, pageNo: _n, page: _g, pageSize: _s, ...filter } = request.query;
      return ok(await follow.listRecords(ctx, requireStudy(request), filter, pageRequest(request.query)));
    },
  );
  app.get(
    '/api/business/follow/overview',
    {
      schema: {
        tags,
        summary: '随访概览（本周随访、待随访、已超窗、各访视完成率、各负责人）',
        querystring: studyIdQuerySchema,
      },
      // The overview counts what the record list lists: the same rule (study staff; names masked without
      // 查看患者身份信息).
      config: { study: fromQuery },
    },
    async (request) => ok(await followOverview(ctx, requireStudy(request))),
  );
  app.get(
    '/api/business/follow/:id',
    {
      schema: { tags, summary: '随访计划详情', params: idParamSchema },
      config: { study: (r) => ofPlan(fromParam(r)) },
    },
    async (request) => ok(await plans.getPlan(ctx, request.params.id)),
  );
  app.post(
    '/api/business/follow',
    {
      schema: { tags, summary: '新增随访计划（已入组患者随即排期）', body: followPlanBodySchema },
      config: { study: fromBody, module, action: '新增计划', studyPermission: PLAN },
    },
    async (request) => ok(await plans.createPlan(ctx, requireUser(request), request.body), '新增成功'),
  );
  app.put(
    '/api/business/follow',
    {
      schema: {
        tags,
        summary: '修改随访计划；reschedule 为真时已入组患者的未完成访视按新计划重排（已完成的不动）',
        body: followPlanUpdateBodySchema,
      },
      config: {
        study: async (r) => {
          const b = body<{ id: number; studyId: number }>(r);
          const planStudy = await ofPlan(b.id);
          return planStudy !== undefined && planStudy === b.studyId ? planStudy : undefined;
        },
        module,
        action: '修改计划',
        studyPermission: PLAN,
      },
    },
    async (request) => ok(await plans.updatePlan(ctx, requireUser(request), request.body), '修改成功'),
  );
  app.delete(
    '/api/business/follow/:id',
    {
      schema: {
        tags,
        summary: '删除随访计划（有未完成随访时需 removePending=true 确认一并删除）',
        params: idParamSchema,
        querystring: followPlanDeleteQuerySchema,
      },
      config: { study: (r) => ofPlan(fromParam(r)), module, action: '删除计划', studyPermission: PLAN },
    },
    async (request) =>
      ok(
        await plans.deletePlan(ctx, requireUser(request), request.params.id, request.query.removePending === true),
        '删除成功',
      ),
  );

  // ---- patient visits (随访记录)
  app.put(
    '/api/business/follow/record/status',
    {
      schema: {
        tags,
        summary: '标记失访（lost）或恢复（restore），需填写原因',
        body: followRecordStatusBodySchema,
      },
      config: {
        study: (r) => ofRecord(body<{ followRecordId: number }>(r).followRecordId),
        module,
        action: '随访状态',
        studyPermission: RECORD,
      },
    },
    async (request) => ok(await follow.setRecordStatus(ctx, requireUser(request), request.body), '操作成功'),
  );
  app.get(
    '/api/business/subject/follows',
    {
      schema: { tags, summary: '患者的随访（全部状态）', querystring: subjectRecordIdQuerySchema },
      config: { study: (r) => ofSubjectRecord(query<{ subjectRecordId: number }>(r).subjectRecordId) },
    },
    async (request) => ok(await follow.subjectFollows(ctx, requireStudy(request), request.query.subjectRecordId)),
  );
  app.post(
    '/api/business/subject/follow',
    {
      schema: { tags, summary: '按随访计划为患者生成/重排随访', body: followScheduleBodySchema },
      config: {
        study: (r) => ofSubjectRecord(body<{ subjectRecordId: number }>(r).subjectRecordId),
        module,
        action: '生成随访',
        studyPermission: RECORD,
      },
    },
    async (request) =>
      ok(await scheduleSubjectNow(ctx, requireUser(request), request.body.subjectRecordId), '操作成功'),
  );
  app.put(
    '/api/business/subject/follow/record',
    {
      schema: {
        tags,
        summary: '修改计划日期（窗口随之移动），需填写原因',
        body: followDateChangeBodySchema,
      },
      config: {
        study: (r) => ofRecord(body<{ followRecordId: number }>(r).followRecordId),
        module,
        action: '修改计划日期',
        studyPermission: RECORD,
      },
    },
    async (request) => ok(await follow.changePlannedDate(ctx, requireUser(request), request.body), '修改成功'),
  );
  app.delete(
    '/api/business/subject/follow/record',
    {
      schema: {
        tags,
        summary: '删除随访（可恢复），需填写原因',
        querystring: followRecordDeleteQuerySchema,
      },
      config: {
        study: (r) => ofRecord(query<{ followRecordId: number }>(r).followRecordId),
        module,
        action: '删除随访',
        studyPermission: RECORD,
      },
    },
    async (request) => {
      await follow.deleteRecord(ctx, requireUser(request), request.query.followRecordId, request.query.reason);
      return ok(null, '删除成功');
    },
  );
  app.put(
    '/api/business/subject/follow/custom',
    {
      schema: {
        tags,
        summary: '添加计划外随访及其表单',
        body: customVisitBodySchema,
      },
      config: {
        study: (r) => ofSubjectRecord(body<{ subjectRecordId: number }>(r).subjectRecordId),
        module,
        action: '添加随访',
        studyPermission: RECORD,
      },
    },
    async (request) => ok(await follow.addCustomVisit(ctx, requireUser(request), request.body), '添加成功'),
  );
  app.get(
    '/api/business/subject/follow/crfs',
    {
      schema: { tags, summary: '随访的表单', querystring: followRecordIdQuerySchema },
      config: { study: (r) => ofRecord(query<{ followRecordId: number }>(r).followRecordId) },
    },
    async (request) => ok(await follow.recordCrfs(ctx, request.query.followRecordId)),
  );
  app.get(
    '/api/business/subject/follow/crf',
    {
      schema: {
        tags,
        summary: '随访的一张表单（按随访与表单）',
        querystring: followRecordCrfQuerySchema,
      },
      config: { study: (r) => ofRecord(query<{ followRecordId: number }>(r).followRecordId) },
    },
    async (request) => ok(await follow.recordCrf(ctx, request.query)),
  );
  app.get(
    '/api/v2/business/subject/follow/crf',
    {
      schema: {
        tags,
        summary: '随访的一张表单（按 followRecordCrfId）',
        querystring: followRecordCrfIdQuerySchema,
      },
      config: {
        study: (r) => {
          const v = query<{ followRecordCrfId: number }>(r).followRecordCrfId;
          return v === undefined ? undefined : studyOf(ctx, 'followRecordCrfs', v);
        },
      },
    },
    async (request) => ok(await follow.recordCrf(ctx, request.query)),
  );

  // ---- a production study's plan drafts (草稿) and their publishing
  followDraftRoutes(app, ctx);
}
