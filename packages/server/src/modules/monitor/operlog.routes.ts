import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { ok } from '../../http/envelope.js';
import { pageRequest, pagingQuery } from '../../http/paging.js';
import type { App } from '../../http/types.js';
import { listOperLogs } from './operlog.service.js';

/** A date-only end bound means the whole of that day. */
const endOfDay = (v: string) => (/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T23:59:59.999+08:00` : v);
const startOfDay = (v: string) => (/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00+08:00` : v);

export function operLogRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/monitor/operlog/list',
    {
      schema: {
        tags: ['操作日志'],
        summary: '操作日志分页列表',
        querystring: z.object({
          ...pagingQuery,
          title: z.string().trim().optional(),
          operName: z.string().trim().optional(),
          businessType: z.string().trim().optional(),
          status: z.coerce.number().int().min(0).max(1).optional(),
          beginTime: z.string().transform(startOfDay).pipe(z.coerce.date()).optional(),
          endTime: z.string().transform(endOfDay).pipe(z.coerce.date()).optional(),
        }),
      },
      config: { permission: 'monitor:operlog:list' },
    },
    async (request) => ok(await listOperLogs(ctx, request.query, pageRequest(request.query))),
  );
}
