import type { AppContext } from '../../app-context.js';
import { ok } from '../../http/envelope.js';
import { requireStudy } from '../../http/study-guard.js';
import type { App } from '../../http/types.js';
import { fromQuery, studyIdQuery } from '../../http/study-params.js';
import { studyIndex } from './home.service.js';

export function homeRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/business/index',
    {
      schema: { tags: ['项目首页'], summary: '项目首页统计', querystring: studyIdQuery },
      config: { study: fromQuery },
    },
    async (request) => {
      const access = requireStudy(request);
      return ok(await studyIndex(ctx, request.query.studyId, access.timeZone, access));
    },
  );
}
