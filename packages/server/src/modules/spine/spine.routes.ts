import type { FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idTextSchema } from '../../http/ids.js';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../http/app-error.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { requireStudy } from '../../http/study-guard.js';
import type { App } from '../../http/types.js';
import { studyOf } from '../../shared/study-of.js';
import * as spine from './spine.service.js';

/** X-rays are a few MB; 50 MB leaves room for a large uncompressed BMP. */
const MAX_XRAY_BYTES = 50 * 1024 * 1024;

const predictionQuery = z
  .object({
    studyId: idTextSchema.optional(),
    fileKey: z
      .string()
      .regex(/^[0-9a-f]{32}$/, '文件不存在')
      .optional(),
  })
  .refine((q) => q.studyId !== undefined || q.fileKey !== undefined, { message: '请指定项目或文件' });
type PredictionQuery = z.infer<typeof predictionQuery>;

/** The study is the one named, or the one of the stored image: the membership guard runs before the body is read. */
function predictionStudy(ctx: AppContext) {
  return (request: FastifyRequest) => {
    const q = request.query as PredictionQuery;
    return q.fileKey !== undefined ? studyOf(ctx, 'storedFiles', q.fileKey) : q.studyId;
  };
}

export function spineRoutes(app: App, ctx: AppContext) {
  void app.register(async (scope) => {
    await scope.register(multipart, { limits: { fileSize: MAX_XRAY_BYTES, files: 1, fields: 5 } });
    const routes = scope.withTypeProvider<ZodTypeProvider>();

    routes.post(
      '/spine_cobb/v2/getprediction',
      {
        schema: {
          tags: ['脊柱'],
          summary: '脊柱Cobb角自动识别（multipart 字段 image）',
          consumes: ['multipart/form-data'],
          querystring: predictionQuery,
        },
        config: { study: predictionStudy(ctx), module: '脊柱测量', action: '自动识别' },
      },
      async (request) => {
        const user = requireUser(request);
        const access = requireStudy(request);
        let image: Buffer | null = null;
        let fileName = '';
        if (request.isMultipart()) {
          for await (const part of request.parts()) {
            if (part.type === 'file') {
              const bytes = await part.toBuffer();
              if (part.fieldname === 'image') {
                if (part.file.truncated) throw AppError.badRequest('spine.too_large', '上传文件大小不能超过50MB!');
                image = bytes;
                fileName = part.filename.slice(0, 255);
              }
            }
          }
        }
        const { data, msg } = await spine.predict(
          ctx,
          user,
          access,
          { image, fileName: fileName || 'xray', fileKey: request.query.fileKey ?? null },
          (line) => request.log.warn(line),
        );
        return ok(data, msg);
      },
    );
  });
}
