import type { AppContext } from '../../app-context.js';
import { AppError } from '../../http/app-error.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import type { App } from '../../http/types.js';
import { chainReportText, verifyAuditChains } from './audit-chain.js';

export function auditRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/monitor/audit/verify',
    {
      schema: {
        tags: ['审计追踪'],
        summary: '校验全部项目的审计追踪哈希链（仅系统管理员）：每个项目的链头、第一处断链',
      },
    },
    async (request) => {
      // Every study's chain heads and break positions: a system-wide fact, for administrators only.
      if (!requireUser(request).admin) throw AppError.forbidden();
      const report = await verifyAuditChains(ctx.db);
      return ok({ ...report, text: chainReportText(report) });
    },
  );
}
