import type { FastifyRequest } from 'fastify';
import {
  doubtListQuerySchema,
  doubtMessageBodySchema,
  doubtOpenBodySchema,
  doubtOpenQuerySchema,
  idParamSchema,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { pageRequest } from '../../http/paging.js';
import { requireStudy } from '../../http/study-guard.js';
import type { App } from '../../http/types.js';
import { studyOf } from '../../shared/study-of.js';
import { siteLocators } from '../../shared/patient-site.js';
import { fromQuery, studyIdQuery } from '../../http/study-params.js';
import * as doubtActions from './doubt-actions.service.js';
import * as doubtService from './doubt.service.js';

const tags = ['质疑'];
const module = '质疑管理';

export function doubtRoutes(app: App, ctx: AppContext) {
  const ofDoubt = (doubtId: number | undefined) => (doubtId ? studyOf(ctx, 'doubts', doubtId) : undefined);
  const ofOpen = (r: FastifyRequest) => {
    const body = r.body as { crfDataRecordId?: number; doubtId?: number } | undefined;
    if (body?.doubtId) return ofDoubt(body.doubtId);
    return body?.crfDataRecordId
      ? studyOf(ctx, 'crfDataRecords', body.crfDataRecordId)
      : (r.query as { studyId?: number }).studyId;
  };

  app.post(
    '/api/business/doubt/open',
    {
      schema: {
        tags,
        summary: '发起质疑（或以 doubtId 重新开启已回复的质疑）',
        querystring: doubtOpenQuerySchema,
        body: doubtOpenBodySchema,
      },
      config: { study: ofOpen, module, action: '发起', studyPermission: 'btn:study.doubt.open' },
    },
    async (request) =>
      ok(
        await doubtActions.openDoubt(ctx, requireUser(request), requireStudy(request), request.body),
        doubtService.DOUBT_MSG.opened,
      ),
  );
  app.put(
    '/api/business/doubt/reply',
    {
      schema: {
        tags,
        summary: '回复质疑',
        body: doubtMessageBodySchema,
      },
      config: {
        study: (r) => ofDoubt((r.body as { doubtId: number }).doubtId),
        module,
        action: '回复',
        studyPermission: 'btn:study.doubt.reply',
      },
    },
    async (request) => {
      await doubtActions.replyDoubt(
        ctx,
        requireUser(request),
        requireStudy(request),
        request.body.doubtId,
        request.body.content,
      );
      return ok(null, doubtService.DOUBT_MSG.replied);
    },
  );
  app.put(
    '/api/business/doubt/close',
    {
      schema: {
        tags,
        summary: '关闭质疑',
        body: doubtMessageBodySchema,
      },
      config: {
        study: (r) => ofDoubt((r.body as { doubtId: number }).doubtId),
        module,
        action: '关闭',
        studyPermission: 'btn:study.doubt.close',
      },
    },
    async (request) => {
      await doubtActions.closeDoubt(
        ctx,
        requireUser(request),
        requireStudy(request),
        request.body.doubtId,
        request.body.content,
      );
      return ok(null, doubtService.DOUBT_MSG.closed);
    },
  );
  app.get(
    '/api/business/doubts/count',
    { schema: { tags, summary: '等待我处理的质疑数', querystring: studyIdQuery }, config: { study: fromQuery } },
    async (request) => ok(await doubtService.waitingCount(ctx, requireStudy(request))),
  );
  app.get(
    '/api/business/doubts',
    {
      schema: {
        tags,
        summary: '质疑列表',
        querystring: doubtListQuerySchema,
      },
      config: { study: fromQuery },
    },
    async (request) =>
      ok(
        await doubtService.listDoubts(
          ctx,
          requireStudy(request),
          request.query.studyId,
          request.query,
          pageRequest(request.query),
        ),
      ),
  );
  app.get(
    '/api/business/doubt/:id',
    {
      schema: { tags, summary: '质疑详情与往来记录', params: idParamSchema },
      config: {
        study: (r) => ofDoubt((r.params as { id: number }).id),
        site: siteLocators(ctx).ofDoubt((r: FastifyRequest) => (r.params as { id: number }).id),
      },
    },
    async (request) => ok(await doubtService.getDoubt(ctx, requireStudy(request), request.params.id)),
  );
}
