import { COMMENT_MSG, commentAddBodySchema, commentListQuerySchema } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { requireStudy } from '../../http/study-guard.js';
import { fromBody, fromQuery } from '../../http/study-params.js';
import type { App } from '../../http/types.js';
import * as comments from './comments.service.js';

const tags = ['批注'];
const module = '批注';

/**
 * Field comments (批注). Both routes name the record's crfDataRecordId, so the study guard answers a patient of
 * another site 404 before the service runs; the form's view permission is the service's (it depends on the record).
 */
export function commentRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/business/crf/comments',
    {
      schema: { tags, summary: '表单记录的批注（可按题目筛选）', querystring: commentListQuerySchema },
      config: { study: fromQuery },
    },
    async (request) => ok(await comments.listComments(ctx, requireStudy(request), request.query)),
  );
  app.post(
    '/api/business/crf/comment',
    {
      schema: { tags, summary: '添加批注', body: commentAddBodySchema },
      config: { study: fromBody, module, action: '添加批注' },
    },
    async (request) =>
      ok(await comments.addComment(ctx, requireUser(request), requireStudy(request), request.body), COMMENT_MSG.added),
  );
}
