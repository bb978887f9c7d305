import { count, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { notices, sysConfigs } from '../../db/schema/index.js';
import { ok } from '../../http/envelope.js';
import { pageRequest, pagingQuery } from '../../http/paging.js';
import type { App } from '../../http/types.js';

export function configRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/v1/base/sysconfig/getbasesysconfiglist',
    {
      schema: {
        tags: ['系统配置'],
        summary: '系统配置项（如 SystemTitle、Version）',
        querystring: z.object({ key: z.string().trim().toLowerCase().default('systemtitle') }),
      },
      config: { allowWhilePasswordMustChange: true },
    },
    async (request) =>
      ok(
        await ctx.db
          .select({ fieldName: sysConfigs.fieldName, fieldValue: sysConfigs.fieldValue })
          .from(sysConfigs)
          .where(eq(sysConfigs.configKey, request.query.key))
          .orderBy(sysConfigs.fieldName),
      ),
  );

  app.get(
    '/api/system/notice/list',
    { schema: { tags: ['通知公告'], querystring: z.object({ ...pagingQuery }) }, config: { allowWhilePasswordMustChange: true } },
    async (request) => {
      const page = pageRequest(request.query);
      const live = eq(notices.status, 0);
      const [{ total }] = (await ctx.db.select({ total: count() }).from(notices).where(live)) as [{ total: number }];
      const list = await ctx.db
        .select({ noticeId: notices.noticeId, title: notices.title, content: notices.content, createTime: notices.createdAt })
        .from(notices)
        .where(live)
        .orderBy(desc(notices.createdAt))
        .limit(page.limit)
        .offset(page.offset);
      return ok({ list, total: Number(total) });
    },
  );
}
