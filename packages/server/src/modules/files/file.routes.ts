import type { FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../http/app-error.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { isStorableText, malformedInput } from '../../http/input-bounds.js';
import { requireStudy } from '../../http/study-guard.js';
import type { App } from '../../http/types.js';
import { fromQuery, studyIdQuery } from '../study/study.routes.js';
import * as files from './file.service.js';

export function fileRoutes(app: App, ctx: AppContext) {
  const q = <T>(r: FastifyRequest) => r.query as T;

  app.get(
    '/api/v1/fileupload/downfile',
    {
      schema: {
        tags: ['文件'],
        summary: '下载文件（仅限该项目人员）',
        querystring: z.object({ fileKey: z.string().regex(/^[0-9a-f]{32}$/, '文件不存在') }),
      },
      config: { study: (r) => files.studyOfFile(ctx, q<{ fileKey: string }>(r).fileKey) },
    },
    async (request, reply) => {
      const { row, stream } = await files.readFile(
        ctx,
        requireUser(request),
        requireStudy(request),
        request.query.fileKey,
      );
      return reply
        .headers(files.servingHeaders(row.contentType, row.fileName))
        .header('content-length', row.size)
        .send(stream);
    },
  );

  void app.register(async (scope) => {
    await scope.register(multipart, { limits: { fileSize: files.MAX_UPLOAD_BYTES, files: 1, fields: 10 } });
    const uploads = scope.withTypeProvider<ZodTypeProvider>();

    uploads.post(
      '/api/common/file/upload',
      {
        schema: {
          tags: ['文件'],
          summary: '上传文件（表单中的图片、视频、文件）',
          consumes: ['multipart/form-data'],
          querystring: studyIdQuery,
        },
        // The study is named in the address, not in the body: the membership guard runs before
        // a single byte of the upload is read, so a non-member's file never touches the disk.
        config: { study: fromQuery, module: '文件', action: '上传' },
      },
      async (request) => {
        const user = requireUser(request);
        const { studyId } = requireStudy(request);
        let stored: Awaited<ReturnType<typeof files.receiveFile>> | undefined;
        let fileName = '';
        for await (const part of request.parts()) {
          if (part.type === 'file') {
            // Refused before a byte is stored: the name could not be written to the database.
            if (!isStorableText(part.filename)) throw malformedInput('text');
            fileName = part.filename;
            stored = await files.receiveFile(ctx, part.file, part.filename);
          }
        }
        if (!stored) throw AppError.badRequest('file.missing', '请选择要上传的文件');
        return ok(await files.recordFile(ctx, user, studyId, stored, fileName), '上传成功');
      },
    );
  });
}
