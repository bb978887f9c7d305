import { securitySettingsSchema } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import type { App } from '../../http/types.js';
import * as settings from './security-settings.service.js';

const tags = ['系统设置'];
const module = '系统设置';

/** 系统设置: account and session policy (issue 36), for holders of the page's permission (系统管理员 by default). */
export function securitySettingsRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/system/security-settings',
    { schema: { tags, summary: '账号与会话安全设置' }, config: { permission: 'sys:settings' } },
    async () => ok(await settings.readSecuritySettings(ctx.db)),
  );

  app.put(
    '/api/system/security-settings',
    {
      schema: { tags, summary: '保存账号与会话安全设置', body: securitySettingsSchema },
      config: { permission: 'sys:settings', module, action: '修改' },
    },
    async (request) => ok(await settings.saveSecuritySettings(ctx, requireUser(request), request.body), '保存成功'),
  );

  app.get(
    '/api/system/security-settings/history',
    { schema: { tags, summary: '安全设置修改记录' }, config: { permission: 'sys:settings' } },
    async () => ok(await settings.securitySettingChanges(ctx)),
  );
}
