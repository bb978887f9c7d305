import { and, desc, eq, inArray } from 'drizzle-orm';
import {
  SECURITY_CONFIG_KEY,
  SECURITY_FIELDS,
  SECURITY_SETTING_NAMES,
  securitySettingsOf,
  type SecuritySetting,
  type SecuritySettingChange,
  type SecuritySettings,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { auditEvents, sysConfigs } from '../../db/schema/index.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { audit } from '../audit/audit.service.js';

/**
 * 系统设置 (issue 36): password aging, password history and idle sign-out, one sys_configs row each under the
 * 'security' key. A setting never saved reads as its default. The audit chain of study 0 (the platform's own chain,
 * no study has id 0) keeps each change with its old and new value; the operation log records the request as well.
 */
export const PLATFORM_CHAIN = 0;

const FIELD_NAMES = Object.values(SECURITY_FIELDS);

export async function readSecuritySettings(db: Db): Promise<SecuritySettings> {
  const rows = await db
    .select({ fieldName: sysConfigs.fieldName, fieldValue: sysConfigs.fieldValue })
    .from(sysConfigs)
    .where(and(eq(sysConfigs.configKey, SECURITY_CONFIG_KEY), inArray(sysConfigs.fieldName, FIELD_NAMES)));
  return securitySettingsOf(rows);
}

/** Saves the settings that changed, each audited with its old and new value; answers the settings now in force. */
export async function saveSecuritySettings(ctx: AppContext, user: CurrentUser, input: SecuritySettings) {
  const now = ctx.clock();
  return ctx.db.transaction(async (tx) => {
    const before = await readSecuritySettings(tx);
    const changed = (Object.keys(SECURITY_FIELDS) as SecuritySetting[]).filter((key) => before[key] !== input[key]);
    for (const key of changed) {
      const fieldValue = String(input[key]);
      await tx
        .insert(sysConfigs)
        .values({ fieldName: SECURITY_FIELDS[key], configKey: SECURITY_CONFIG_KEY, fieldValue })
        .onConflictDoUpdate({ target: sysConfigs.fieldName, set: { fieldValue, updatedAt: now } });
    }
    await audit(
      tx,
      user,
      now,
      changed.map((key) => ({
        studyId: PLATFORM_CHAIN,
        action: 'system.security',
        itemName: key,
        oldValue: before[key],
        newValue: input[key],
      })),
    );
    return { ...before, ...input };
  });
}

/** The changes made in 系统设置, newest first (the audit rows of the platform chain). */
export async function securitySettingChanges(ctx: AppContext, limit = 50): Promise<SecuritySettingChange[]> {
  const rows = await ctx.db
    .select({
      id: auditEvents.id,
      itemName: auditEvents.itemName,
      oldValue: auditEvents.oldValue,
      newValue: auditEvents.newValue,
      userName: auditEvents.userName,
      createdAt: auditEvents.createdAt,
    })
    .from(auditEvents)
    .where(and(eq(auditEvents.studyId, PLATFORM_CHAIN), eq(auditEvents.action, 'system.security')))
    .orderBy(desc(auditEvents.id))
    .limit(limit);
  return rows.map((row) => {
    const setting = row.itemName ?? '';
    return {
      id: row.id,
      setting,
      name: SECURITY_SETTING_NAMES[setting as SecuritySetting] ?? setting,
      oldValue: typeof row.oldValue === 'number' ? row.oldValue : null,
      newValue: Number(row.newValue),
      userName: row.userName,
      createTime: row.createdAt.toISOString(),
    };
  });
}
