import { operLogQuerySchema } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { ok } from '../../http/envelope.js';
import { pageRequest } from '../../http/paging.js';
import type { App } from '../../http/types.js';
import { listOperLogs } from './operlog.service.js';
import { AppError } from '../../http/app-error.js';
import { requireUser } from '../../http/auth.js';

/** The route names no study: the whole log, for system administrators only. */
const WHOLE_LOG = null;

export function operLogRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/monitor/operlog/list',
    {
      schema: {
        tags: ['操作日志'],
        summary: '操作日志分页列表（带 studyId：该项目的记录，项目人员可见；不带：全部记录，仅系统管理员）',
        querystring: operLogQuerySchema,
      },
      config: {
        permission: 'monitor:operlog:list',
        // Whoever names a study must be its staff (or hold study:manage); only then its entries are shown.
        study: (r) => (r.query as { studyId?: number }).studyId ?? WHOLE_LOG,
      },
    },
    async (request) => {
      const studyId = request.query.studyId;
      if (studyId === undefined && !requireUser(request).admin) throw AppError.forbidden();
      return ok(await listOperLogs(ctx, request.query, pageRequest(request.query)));
    },
  );
}
