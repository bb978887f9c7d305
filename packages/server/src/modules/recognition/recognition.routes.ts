import {
  recognitionCallBodySchema,
  recognitionIdParamSchema,
  recognitionLinkBodySchema,
  recognitionSourcesQuerySchema,
  recognitionTempBodySchema,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { loadCurrentUser, requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { requireStudy } from '../../http/study-guard.js';
import type { App } from '../../http/types.js';
import { AppError } from '../../shared/app-error.js';
import { fromQuery, studyIdQuery } from '../../http/study-params.js';
import { ocrPool } from './ocr.pool.js';
import * as service from './recognition.service.js';

/** forms §7, platform §7: the spec's recognition path. It carries `ignore`, so the spec's client sends no token. */
export const RECOGNITION_PATH = '/imgrec/api/ignore/business/image/recognition/common';
const tags = ['智能识别'];

/**
 * Intelligent recognition (智能识别) of lab reports (docs/recognition.md): a signed-in member registers an
 * uploaded image for a tempId; the public call spends it and answers what the OCR job read, in the spec's shape.
 */
export function recognitionRoutes(app: App, ctx: AppContext) {
  // A recognition made on the form of a patient now at another site answers 404 to a scoped caller (分中心).
  const site = async (r: { params: unknown }) => {
    const id = Number((r.params as { recognitionId?: unknown }).recognitionId);
    return Number.isSafeInteger(id) && id > 0 ? service.siteOfRecognition(ctx.db, id) : undefined;
  };
  ctx.jobs.handle<{ recognitionId: number; studyId: number }>(service.RECOGNITION_JOB_KIND, (job, tools) =>
    service.runRecognitionJob(ctx, job, tools),
  );
  app.addHook('onClose', async () => ocrPool().close());

  app.post(
    '/api/v1/imgrec/temp',
    {
      schema: {
        tags,
        summary: '为已上传的图片申请识别凭证 tempId（一次有效，10 分钟内；每人每 10 分钟 30 个）',
        querystring: studyIdQuery,
        body: recognitionTempBodySchema,
      },
      config: { study: fromQuery },
    },
    async (request, reply) => {
      const issued = await service
        .issueTempId(ctx, requireUser(request), requireStudy(request), request.body)
        .catch((err: unknown) => {
          const retryAfter =
            err instanceof AppError ? (err.data as { retryAfter?: number } | null)?.retryAfter : undefined;
          if (retryAfter) reply.header('retry-after', String(retryAfter));
          throw err;
        });
      return ok(issued);
    },
  );

  app.post(
    RECOGNITION_PATH,
    {
      schema: {
        tags,
        summary: '识别化验单图片（凭 tempId，无需令牌）',
        security: [],
        body: recognitionCallBodySchema,
      },
      // Each call starts an OCR job: a bound per address, beside the tempId a caller must hold.
      config: { rateLimit: { max: 60, timeWindow: 60_000 } },
    },
    async (request, reply) => {
      const header = request.headers.authorization;
      const token = header?.startsWith('Bearer ') ? header.slice(7).trim() : '';
      const caller = token ? await loadCurrentUser(ctx, token) : null;
      const outcome = await service.recognise(ctx, request.body, caller?.userId ?? null);
      if (outcome.kind === 'done') return ok(outcome.data, '识别成功');
      if (outcome.kind === 'pending') {
        return reply.code(202).send({
          code: 202,
          msg: '识别仍在进行，请稍后查看',
          data: { jobId: outcome.jobId, recognitionId: outcome.recognitionId },
        });
      }
      if (outcome.unavailable) throw new AppError(503, 'recognition.unavailable', service.MSG_UNAVAILABLE);
      // 识别失败, or why the image was refused or stopped (too large, too slow, too much memory).
      throw new AppError(422, 'recognition.failed', outcome.message);
    },
  );

  app.get(
    '/api/v1/imgrec/sources',
    {
      schema: {
        tags,
        summary: '患者表单的识别原图（SDV 核对）',
        querystring: recognitionSourcesQuerySchema,
      },
      config: { study: fromQuery },
    },
    async (request) => ok(await service.listSources(ctx, requireStudy(request), request.query)),
  );

  app.get(
    '/api/v1/imgrec/:recognitionId',
    {
      schema: {
        tags,
        summary: '本人的一次识别结果（识别超过等待时间后查看）',
        params: recognitionIdParamSchema,
        querystring: studyIdQuery,
      },
      config: { study: fromQuery, site },
    },
    async (request) =>
      ok(
        await service.ownRecognition(ctx, requireUser(request), requireStudy(request), request.params.recognitionId),
        '识别成功',
      ),
  );

  app.put(
    '/api/v1/imgrec/:recognitionId/record',
    {
      schema: {
        tags,
        summary: '把未保存表单上的识别关联到首次保存生成的记录',
        params: recognitionIdParamSchema,
        querystring: studyIdQuery,
        body: recognitionLinkBodySchema,
      },
      config: { study: fromQuery, site },
    },
    async (request) =>
      ok(
        await service.linkRecord(
          ctx,
          requireUser(request),
          requireStudy(request),
          request.params.recognitionId,
          request.body.crfDataRecordId,
        ),
      ),
  );
}
