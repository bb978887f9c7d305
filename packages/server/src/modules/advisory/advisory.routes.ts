import {
  consultAnswerBodySchema,
  consultAskBodySchema,
  consultCloseBodySchema,
  consultListQuerySchema,
  idParamSchema,
  type ConsultState,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { pageRequest } from '../../http/paging.js';
import { requireStudy } from '../../http/study-guard.js';
import type { App } from '../../http/types.js';
import { siteLocators } from '../../shared/patient-site.js';
import { fromBody, fromParam, fromQuery, studyIdQuery } from '../../http/study-params.js';
import * as advisory from './advisory.service.js';

const tags = ['在线咨询'];
const module = '在线咨询';
const BASE = '/api/v1/advisory/manager';

/**
 * 在线咨询 (platform §2 /project/consult, §7 advisory/manager/list): patients' questions about a study, answered by
 * its staff. Every call needs membership of the study; the list and a question need 查看咨询
 * (btn:business.consult.view), answering, closing and entering a question on a patient's behalf 回复咨询
 * (btn:business.consult.reply), which includes 查看咨询.
 *
 * GET /api/v1/advisory/manager/list?studyId&state&keyword&subjectId&pageNum&pageSize   paged, waiting first
 * GET /api/v1/advisory/manager/{id}?studyId
 * POST /api/v1/advisory/manager              { studyId, subjectId, title, question }   on a patient's behalf
 * PUT /api/v1/advisory/manager/{id}/answer   { studyId, answer }
 * PUT /api/v1/advisory/manager/{id}/close    { studyId }
 */
export function advisoryRoutes(app: App, ctx: AppContext) {
  // A question of a patient at another site answers 404 to a caller scoped to other sites (分中心).
  const site = siteLocators(ctx).ofConsultation(fromParam);
  app.get(
    `${BASE}/list`,
    {
      schema: {
        tags,
        summary: '咨询列表（分页）',
        querystring: consultListQuerySchema,
      },
      config: { study: fromQuery, studyPermission: advisory.CONSULT_VIEW },
    },
    async (request) => {
      const q = request.query;
      return ok(
        await advisory.listConsults(
          ctx,
          requireStudy(request),
          { state: q.state as ConsultState | undefined, keyword: q.keyword, subjectId: q.subjectId },
          pageRequest(q),
        ),
      );
    },
  );

  app.get(
    `${BASE}/:id`,
    {
      schema: { tags, summary: '咨询详情', params: idParamSchema, querystring: studyIdQuery },
      config: { study: fromQuery, studyPermission: advisory.CONSULT_VIEW, site },
    },
    async (request) => ok(await advisory.getConsult(ctx, requireStudy(request), request.params.id)),
  );

  app.post(
    BASE,
    {
      schema: {
        tags,
        summary: '代患者提交咨询',
        body: consultAskBodySchema,
      },
      config: { study: fromBody, studyPermission: advisory.CONSULT_REPLY, module, action: '新增咨询' },
    },
    async (request) =>
      ok(await advisory.askOnBehalf(ctx, requireUser(request), requireStudy(request), request.body), '新增成功'),
  );

  app.put(
    `${BASE}/:id/answer`,
    {
      schema: { tags, summary: '回复咨询', params: idParamSchema, body: consultAnswerBodySchema },
      config: { study: fromBody, studyPermission: advisory.CONSULT_REPLY, module, action: '回复咨询', site },
    },
    async (request) =>
      ok(
        await advisory.answerConsult(
          ctx,
          requireUser(request),
          requireStudy(request),
          request.params.id,
          request.body.answer,
        ),
        '回复成功',
      ),
  );

  app.put(
    `${BASE}/:id/close`,
    {
      schema: { tags, summary: '关闭咨询', params: idParamSchema, body: consultCloseBodySchema },
      config: { study: fromBody, studyPermission: advisory.CONSULT_REPLY, module, action: '关闭咨询', site },
    },
    async (request) =>
      ok(await advisory.closeConsult(ctx, requireUser(request), requireStudy(request), request.params.id), '关闭成功'),
  );
}
