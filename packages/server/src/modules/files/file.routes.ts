import type { FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  fileDownloadQuerySchema,
  fileUploadQuerySchema,
  objectFileParamsSchema,
  uploadConfirmBodySchema,
  uploadTokenQuerySchema,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../http/app-error.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { isStorableText, malformedInput } from '../../http/input-bounds.js';
import { requireStudy } from '../../http/study-guard.js';
import type { App } from '../../http/types.js';
import { studyOf } from '../../shared/study-of.js';
import { fromQuery, studyIdQuery } from '../../http/study-params.js';
import * as files from './file.service.js';
import * as objects from './object-upload.service.js';

/** Core's token query, with the file name held to what the database can store. */
const uploadTokenQuery = uploadTokenQuerySchema.extend({
  fileName: uploadTokenQuerySchema.shape.fileName.refine(isStorableText, '文件名不合法'),
});

export function fileRoutes(app: App, ctx: AppContext) {
  const q = <T>(r: FastifyRequest) => r.query as T;

  app.get(
    '/api/v1/fileupload/downfile',
    {
      schema: {
        tags: ['文件'],
        summary: '下载文件（仅限该项目人员）',
        // UPL-17: `<video key>_thumbnail.jpg` is the video's first frame, read under the video's rule.
        querystring: fileDownloadQuerySchema,
      },
      config: { study: (r) => studyOf(ctx, 'storedFiles', q<{ fileKey: string }>(r).fileKey.slice(0, 32)) },
    },
    async (request, reply) => {
      const { fileKey } = request.query;
      const user = requireUser(request);
      const { row, stream } =
        fileKey.length > 32
          ? await files.readThumbnail(ctx, user, requireStudy(request), fileKey.slice(0, 32))
          : await files.readFile(ctx, user, requireStudy(request), fileKey);
      return reply
        .headers(files.servingHeaders(row.contentType, row.fileName))
        .header('content-length', row.size)
        .send(stream);
    },
  );

  // UPL-11: the spec's token call (its path names the provider the spec's client used); any S3-compatible store.
  app.get(
    '/api/v1/qiniu/upload/token',
    {
      schema: {
        tags: ['文件'],
        summary: '对象存储上传凭证（外网模式）；未配置对象存储时答复内网模式',
        querystring: uploadTokenQuery,
      },
      config: { study: fromQuery },
    },
    async (request) => {
      const { type, fileName, size, thumbnailOf } = request.query;
      const { studyId } = requireStudy(request);
      return ok(
        await objects.issueUploadToken(ctx, requireUser(request), studyId, { kind: type, fileName, size, thumbnailOf }),
      );
    },
  );

  app.post(
    '/api/v1/qiniu/upload/confirm',
    {
      schema: {
        tags: ['文件'],
        summary: '登记已上传到对象存储的文件（校验、哈希、归属项目）',
        querystring: studyIdQuery,
        body: uploadConfirmBodySchema,
      },
      config: { study: fromQuery, module: '文件', action: '上传' },
    },
    async (request) => {
      const { studyId } = requireStudy(request);
      return ok(await objects.confirmUpload(ctx, requireUser(request), studyId, request.body.key), '上传成功');
    },
  );

  // Under the file cookie's path: an <img> or <video> showing `domain + key` is signed in.
  app.get(
    '/api/v1/fileupload/object/*',
    {
      schema: {
        tags: ['文件'],
        summary: '读取对象存储中的文件（仅限该项目人员，转到短时有效地址）',
        params: objectFileParamsSchema,
      },
      config: {
        study: (r) => studyOf(ctx, 'storedFiles', objects.objectFileKey((r.params as { '*': string })['*'])),
      },
    },
    async (request, reply) => {
      const url = await objects.objectReadUrl(ctx, requireUser(request), requireStudy(request), request.params['*']);
      return reply.header('cache-control', 'no-store').redirect(url, 302);
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
          // UPL-17: the first frame of a video just uploaded (its key), kept as `<video key>_thumbnail.jpg`.
          querystring: fileUploadQuerySchema,
        },
        // The study is named in the address, not in the body: the membership guard runs before
        // a single byte of the upload is read, so a non-member's file never touches the disk.
        config: { study: fromQuery, module: '文件', action: '上传' },
      },
      async (request) => {
        const user = requireUser(request);
        const { studyId } = requireStudy(request);
        const { thumbnailOf } = request.query;
        const thumbnailKey = thumbnailOf === undefined ? undefined : files.thumbnailFileKey(thumbnailOf);
        if (thumbnailOf !== undefined && thumbnailKey !== undefined) {
          await files.checkThumbnailTarget(ctx, user, studyId, thumbnailOf, thumbnailKey);
        }
        let stored: Awaited<ReturnType<typeof files.receiveFile>> | undefined;
        let fileName = '';
        for await (const part of request.parts()) {
          if (part.type === 'file') {
            // Refused before a byte is stored: the name could not be written to the database.
            if (!isStorableText(part.filename)) throw malformedInput('text');
            fileName = part.filename;
            stored = await files.receiveFile(ctx, part.file, part.filename, thumbnailKey);
          }
        }
        if (!stored) throw AppError.badRequest('file.missing', '请选择要上传的文件');
        if (thumbnailKey !== undefined && stored.contentType !== 'image/jpeg') {
          await ctx.files.delete(files.storageKeyOf(stored.fileKey));
          throw AppError.badRequest('file.type_refused', '不支持的文件类型');
        }
        return ok(await files.recordFile(ctx, user, studyId, stored, fileName), '上传成功');
      },
    );
  });
}
