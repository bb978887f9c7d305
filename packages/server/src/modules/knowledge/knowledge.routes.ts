import multipart from '@fastify/multipart';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  articleBodySchema,
  contentImageParamsSchema,
  idParamSchema,
  knowledgeListQuerySchema,
  knowledgeTypeBodySchema,
  publicKnowledgeListQuerySchema,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../http/app-error.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { isStorableText, malformedInput } from '../../http/input-bounds.js';
import { pageRequest } from '../../http/paging.js';
import { requireStudy } from '../../http/study-guard.js';
import type { App } from '../../http/types.js';
import { fromBody, fromQuery, studyIdQuery } from '../../http/study-params.js';
import { MAX_UPLOAD_BYTES, servingHeaders } from '../files/file.service.js';
import * as knowledge from './knowledge.service.js';

const tags = ['知识库'];
const module = '知识库';

/**
 * Knowledge base (platform §7: /api/v1/knowledge(s) and types).
 *
 * GET    /api/v1/knowledge/types                 every signed-in user
 * POST   /api/v1/knowledge/types                 study:manage   { name, sort }
 * PUT    /api/v1/knowledge/types/{id}            study:manage
 * DELETE /api/v1/knowledge/types/{id}            study:manage (refused while articles use it)
 * GET    /api/v1/knowledges?studyId&typeId&status&keyword&pageNum&pageSize    members: the study's and the platform's
 * GET    /api/v1/knowledge/{id}?studyId          members
 * POST   /api/v1/knowledge                       管理知识库 (platform-wide: study:manage)
 * PUT    /api/v1/knowledge/{id}                  the same
 * DELETE /api/v1/knowledge/{id}?studyId          the same
 * POST   /api/v1/content/image?studyId           a picture for patient-facing content (multipart)
 * GET    /api/ignore/knowledges?studyId&typeId&keyword&pageNum&pageSize      public: published only
 * GET    /api/ignore/knowledge/{id}              public: published only
 * GET    /api/ignore/content/image/{fileKey}     public: a content picture
 */
export function knowledgeRoutes(app: App, ctx: AppContext) {
  app.get('/api/v1/knowledge/types', { schema: { tags, summary: '知识分类' } }, async () =>
    ok(await knowledge.listTypes(ctx)),
  );
  app.post(
    '/api/v1/knowledge/types',
    {
      schema: { tags, summary: '新增知识分类', body: knowledgeTypeBodySchema },
      config: { permission: knowledge.PLATFORM_CONTENT, module, action: '新增分类' },
    },
    async (request) => ok(await knowledge.createType(ctx, request.body), '新增成功'),
  );
  app.put(
    '/api/v1/knowledge/types/:id',
    {
      schema: { tags, summary: '修改知识分类', params: idParamSchema, body: knowledgeTypeBodySchema },
      config: { permission: knowledge.PLATFORM_CONTENT, module, action: '修改分类' },
    },
    async (request) => ok(await knowledge.updateType(ctx, request.params.id, request.body), '修改成功'),
  );
  app.delete(
    '/api/v1/knowledge/types/:id',
    {
      schema: { tags, summary: '删除知识分类', params: idParamSchema },
      config: { permission: knowledge.PLATFORM_CONTENT, module, action: '删除分类' },
    },
    async (request) => {
      await knowledge.deleteType(ctx, request.params.id);
      return ok(null, '删除成功');
    },
  );

  app.get(
    '/api/v1/knowledges',
    {
      schema: { tags, summary: '知识库文章（分页，可搜索）', querystring: knowledgeListQuerySchema },
      config: { study: fromQuery },
    },
    async (request) => {
      const q = request.query;
      return ok(
        await knowledge.staffList(
          ctx,
          requireStudy(request),
          { typeId: q.typeId, status: q.status, keyword: q.keyword },
          pageRequest(q),
        ),
      );
    },
  );
  app.get(
    '/api/v1/knowledge/:id',
    {
      schema: { tags, summary: '文章详情', params: idParamSchema, querystring: studyIdQuery },
      config: { study: fromQuery },
    },
    async (request) => ok(await knowledge.staffArticle(ctx, requireStudy(request), request.params.id)),
  );
  app.post(
    '/api/v1/knowledge',
    {
      schema: { tags, summary: '新增文章', body: articleBodySchema },
      config: { study: fromBody, module, action: '新增文章' },
    },
    async (request) =>
      ok(await knowledge.createArticle(ctx, requireUser(request), requireStudy(request), request.body), '保存成功'),
  );
  app.put(
    '/api/v1/knowledge/:id',
    {
      schema: { tags, summary: '修改文章', params: idParamSchema, body: articleBodySchema },
      config: { study: fromBody, module, action: '修改文章' },
    },
    async (request) =>
      ok(
        await knowledge.updateArticle(
          ctx,
          requireUser(request),
          requireStudy(request),
          request.params.id,
          request.body,
        ),
        '保存成功',
      ),
  );
  app.delete(
    '/api/v1/knowledge/:id',
    {
      schema: { tags, summary: '删除文章', params: idParamSchema, querystring: studyIdQuery },
      config: { study: fromQuery, module, action: '删除文章' },
    },
    async (request) => {
      await knowledge.deleteArticle(ctx, requireUser(request), requireStudy(request), request.params.id);
      return ok(null, '删除成功');
    },
  );

  app.get(
    '/api/ignore/knowledges',
    { schema: { tags, summary: '已发布文章（患者端，无需登录）', querystring: publicKnowledgeListQuerySchema } },
    async (request) => {
      const q = request.query;
      return ok(
        await knowledge.publicList(ctx, q.studyId ?? null, { typeId: q.typeId, keyword: q.keyword }, pageRequest(q)),
      );
    },
  );
  app.get(
    '/api/ignore/knowledge/:id',
    { schema: { tags, summary: '已发布文章详情（患者端，无需登录）', params: idParamSchema } },
    async (request) => ok(await knowledge.publicArticle(ctx, request.params.id)),
  );
  app.get(
    '/api/ignore/content/image/:fileKey',
    { schema: { tags, summary: '内容图片（无需登录）', params: contentImageParamsSchema } },
    async (request, reply) => {
      const { row, stream } = await knowledge.readContentImage(ctx, request.params.fileKey);
      return reply
        .headers(servingHeaders(row.contentType, row.fileName))
        .header('content-length', row.size)
        .header('cache-control', 'public, max-age=86400, immutable')
        .send(stream);
    },
  );

  void app.register(async (scope) => {
    await scope.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 10 } });
    const uploads = scope.withTypeProvider<ZodTypeProvider>();
    uploads.post(
      '/api/v1/content/image',
      {
        schema: {
          tags,
          summary: '上传内容图片（封面、文章图片、医生照片）',
          consumes: ['multipart/form-data'],
          querystring: studyIdQuery,
        },
        config: { study: fromQuery, module, action: '上传图片' },
      },
      async (request) => {
        const user = requireUser(request);
        // Refused before a byte is read.
        if (!knowledge.mayUploadContent(user, requireStudy(request))) throw AppError.forbidden();
        let stored: Awaited<ReturnType<typeof knowledge.storeContentImage>> | undefined;
        for await (const part of request.parts()) {
          if (part.type === 'file') {
            if (!isStorableText(part.filename)) throw malformedInput('text');
            stored = await knowledge.storeContentImage(ctx, user, part.file, part.filename);
          }
        }
        if (!stored) throw AppError.badRequest('file.missing', '请选择要上传的文件');
        return ok(stored, '上传成功');
      },
    );
  });
}
