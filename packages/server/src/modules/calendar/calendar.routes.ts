import { calendarEventBodySchema, calendarEventListQuerySchema, idParamSchema } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { pageRequest } from '../../http/paging.js';
import { requireStudy } from '../../http/study-guard.js';
import type { App } from '../../http/types.js';
import { fromBody, fromQuery, studyIdQuery } from '../../http/study-params.js';
import * as calendar from './calendar.service.js';

const tags = ['日历'];
const module = '日历';
const BASE = '/api/business/events';

/**
 * The caller's own calendar events in a study (日历): every call needs membership of the study (the study
 * guard) and reads or changes only the caller's events; another user's event answers as missing.
 *
 * GET    /api/business/events?studyId&startDate&endDate&pageNum&pageSize   paged, by start
 * GET    /api/business/events/count?studyId                               { today } for the top bar
 * GET    /api/business/events/{id}?studyId
 * POST   /api/business/events            body { studyId, …event }
 * PUT    /api/business/events/{id}       body { studyId, …event }
 * DELETE /api/business/events/{id}?studyId
 */
export function calendarRoutes(app: App, ctx: AppContext) {
  app.get(
    BASE,
    {
      schema: {
        tags,
        summary: '我的日程（分页，可按日期范围）',
        querystring: calendarEventListQuerySchema,
      },
      config: { study: fromQuery },
    },
    async (request) => {
      const q = request.query;
      return ok(
        await calendar.listEvents(
          ctx,
          requireUser(request),
          requireStudy(request),
          { startDate: q.startDate, endDate: q.endDate },
          pageRequest(q),
        ),
      );
    },
  );

  app.get(
    `${BASE}/count`,
    { schema: { tags, summary: '今日日程数（顶栏）', querystring: studyIdQuery }, config: { study: fromQuery } },
    async (request) =>
      ok({ today: await calendar.todayCount(ctx, requireUser(request).userId, requireStudy(request)) }),
  );

  app.get(
    `${BASE}/:id`,
    {
      schema: { tags, summary: '日程详情', params: idParamSchema, querystring: studyIdQuery },
      config: { study: fromQuery },
    },
    async (request) => ok(await calendar.getEvent(ctx, requireUser(request), requireStudy(request), request.params.id)),
  );

  app.post(
    BASE,
    {
      schema: { tags, summary: '新增日程', body: calendarEventBodySchema },
      config: { study: fromBody, module, action: '新增日程' },
    },
    async (request) =>
      ok(await calendar.createEvent(ctx, requireUser(request), requireStudy(request), request.body), '新增成功'),
  );

  app.put(
    `${BASE}/:id`,
    {
      schema: { tags, summary: '修改日程', params: idParamSchema, body: calendarEventBodySchema },
      config: { study: fromBody, module, action: '修改日程' },
    },
    async (request) =>
      ok(
        await calendar.updateEvent(ctx, requireUser(request), requireStudy(request), request.params.id, request.body),
        '修改成功',
      ),
  );

  app.delete(
    `${BASE}/:id`,
    {
      schema: { tags, summary: '删除日程', params: idParamSchema, querystring: studyIdQuery },
      config: { study: fromQuery, module, action: '删除日程' },
    },
    async (request) => {
      await calendar.deleteEvent(ctx, requireUser(request), requireStudy(request), request.params.id);
      return ok(null, '删除成功');
    },
  );
}
