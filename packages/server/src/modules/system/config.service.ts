import { count, desc, eq } from 'drizzle-orm';
import type { AppContext } from '../../app-context.js';
import { notices, sysConfigs } from '../../db/schema/index.js';
import type { PageRequest } from '../../shared/paging.js';

/** The fields of one configuration key (SystemTitle, Version, …). */
export async function listConfigFields(ctx: AppContext, configKey: string) {
  return ctx.db
    .select({ fieldName: sysConfigs.fieldName, fieldValue: sysConfigs.fieldValue })
    .from(sysConfigs)
    .where(eq(sysConfigs.configKey, configKey))
    .orderBy(sysConfigs.fieldName);
}

/** Published notices, newest first. */
export async function listNotices(ctx: AppContext, page: PageRequest) {
  const live = eq(notices.status, 0);
  const [{ total }] = (await ctx.db.select({ total: count() }).from(notices).where(live)) as [{ total: number }];
  const list = await ctx.db
    .select({
      noticeId: notices.noticeId,
      title: notices.title,
      content: notices.content,
      createTime: notices.createdAt,
    })
    .from(notices)
    .where(live)
    .orderBy(desc(notices.createdAt))
    .limit(page.limit)
    .offset(page.offset);
  return { list, total: Number(total) };
}
