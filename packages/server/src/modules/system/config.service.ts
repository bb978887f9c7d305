import { eq } from 'drizzle-orm';
import type { AppContext } from '../../app-context.js';
import { sysConfigs } from '../../db/schema/index.js';

/** The fields of one configuration key (SystemTitle, Version, …). */
export async function listConfigFields(ctx: AppContext, configKey: string) {
  return ctx.db
    .select({ fieldName: sysConfigs.fieldName, fieldValue: sysConfigs.fieldValue })
    .from(sysConfigs)
    .where(eq(sysConfigs.configKey, configKey))
    .orderBy(sysConfigs.fieldName);
}
