import type { FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { printTemplateQuerySchema, printWordQuerySchema } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../http/app-error.js';
import { ok } from '../../http/envelope.js';
import { isStorableText, malformedInput } from '../../http/input-bounds.js';
import { sendFile } from '../../http/send-file.js';
import { requireStudy } from '../../http/study-guard.js';
import type { App } from '../../http/types.js';
import { MAX_UPLOAD_BYTES } from '../files/file.service.js';
import { studyOf } from '../../shared/study-of.js';
import * as print from './print.service.js';

export function printRoutes(app: App, ctx: AppContext) {
  const recordStudy = (v: number | undefined) => (v === undefined ? undefined : studyOf(ctx, 'subjectRecords', v));
  const q = <T>(r: FastifyRequest) => r.query as T;

  const crfOfQuery = (r: FastifyRequest) => q<{ crfId: number }>(r).crfId;
  const crfStudy = async (r: FastifyRequest) => {
    const crfId = crfOfQuery(r);
    return crfId ? studyOf(ctx, 'crfs', crfId) : undefined;
  };
  app.get(
    '/api/v1/business/crf/print/is_temp',
    {
      schema: { tags: ['打印'], summary: '表单是否有打印模板', querystring: printTemplateQuerySchema },
      config: { study: crfStudy },
    },
    async (request) => ok(await print.hasTemplate(ctx, request.query.crfId)),
  );
  app.get(
    '/api/v1/business/crf/print/temp',
    {
      schema: { tags: ['打印'], summary: '打印模板信息', querystring: printTemplateQuerySchema },
      config: { study: crfStudy },
    },
    async (request) => ok(await print.templateInfo(ctx, request.query.crfId)),
  );
  app.delete(
    '/api/v1/business/crf/print/temp',
    {
      schema: { tags: ['打印'], summary: '删除打印模板', querystring: printTemplateQuerySchema },
      config: { study: crfStudy, permission: 'study:crf', module: '打印模板', action: '删除' },
    },
    async (request) => {
      await print.deleteTemplate(ctx, request.query.crfId);
      return ok(null, '删除成功');
    },
  );
  app.get(
    '/api/v1/business/crf/print/word',
    {
      schema: {
        tags: ['打印'],
        summary: '按模板生成打印文档',
        querystring: printWordQuerySchema,
      },
      config: { study: (r) => recordStudy(q<{ subjectRecordId: number }>(r).subjectRecordId) },
    },
    async (request, reply) => sendFile(reply, await print.printWord(ctx, requireStudy(request), request.query), true),
  );

  void app.register(async (scope) => {
    await scope.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 10 } });
    const uploads = scope.withTypeProvider<ZodTypeProvider>();

    for (const method of ['POST', 'PUT'] as const) {
      uploads.route({
        method,
        url: '/api/v1/business/crf/print/temp',
        schema: {
          tags: ['打印'],
          summary: method === 'POST' ? '上传打印模板（.docx）' : '替换打印模板',
          querystring: printTemplateQuerySchema,
          consumes: ['multipart/form-data'],
        },
        config: {
          study: crfStudy,
          permission: 'study:crf',
          module: '打印模板',
          action: method === 'POST' ? '上传' : '替换',
        },
        handler: async (request) => {
          const file = await request.file();
          if (!file) throw AppError.badRequest('file.missing', '请选择要上传的文件');
          if (!isStorableText(file.filename)) throw malformedInput('text');
          const data = await file.toBuffer();
          return ok(
            await print.saveTemplate(ctx, requireStudy(request).studyId, request.query.crfId, file.filename, data),
            '上传成功',
          );
        },
      });
    }
  });
}
