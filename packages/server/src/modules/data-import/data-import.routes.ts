import crypto from 'node:crypto';
import multipart from '@fastify/multipart';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  DATA_IMPORT_LIMITS,
  imageUrlsBodySchema,
  importQuerySchema,
  studyIdQuerySchema,
  type ImportMode,
  type ImportResult,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../http/app-error.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { requireStudy } from '../../http/study-guard.js';
import { studyAccessOf } from '../../shared/study-access-of.js';
import type { App } from '../../http/types.js';
import type { CurrentUser } from '../../shared/current-user.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { jobSummary } from '../jobs/job-queue.js';
import { fromBody, fromQuery } from '../../http/study-params.js';
import { createWorkbookPool, type ReadSheet } from './data-import.pool.js';
import {
  applyPlan,
  IMPORT_JOB_KIND,
  importFileKey,
  runImportJob,
  studyNameOf,
  type ImportJobPayload,
} from './data-import-run.service.js';
import { templateWorkbook } from './data-import-template.service.js';
import { planImport, previewOf } from './data-import.service.js';
import { attachImageUrls } from './image-urls.service.js';

const tags = ['数据导入'];
const module = '数据导入';

const dataRows = (sheets: ReadSheet[]) => sheets.reduce((n, s) => n + s.rows.length, 0);

/**
 * Data import (platform §7 Studies → Import, SRCH-06/SRCH-07). The workbook is read on a worker thread; the
 * preview (dryRun=true) writes nothing; the import re-plans the same file (a preview is never trusted) and
 * writes through the form page's save. Above DATA_IMPORT_LIMITS.jobRows data rows the import runs as a job.
 */
export function dataImportRoutes(app: App, ctx: AppContext) {
  const pool = createWorkbookPool();
  app.addHook('onClose', () => pool.close());

  ctx.jobs.handle<ImportJobPayload, ImportResult>(IMPORT_JOB_KIND, (job, tools) =>
    runImportJob(ctx, pool, job, tools, (userId, permissions, studyId) =>
      studyAccessOf(ctx, userId, permissions, studyId),
    ),
  );

  app.get(
    '/api/business/import/template',
    {
      schema: {
        tags,
        summary: '下载数据导入模板（每个可编辑的CRF一个工作表，另有数据字典）',
        querystring: studyIdQuerySchema,
      },
      config: { study: fromQuery, module, action: '下载导入模板' },
    },
    async (request, reply) => {
      const access = requireStudy(request);
      const data = await templateWorkbook(ctx, access);
      const fileName = `${await studyNameOf(ctx, access.studyId)}-数据导入模板.xlsx`;
      return reply
        .header('content-type', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
        .header('x-content-type-options', 'nosniff')
        .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(fileName)}`)
        .send(data);
    },
  );

  app.post(
    '/api/business/import/image_urls',
    {
      schema: { tags, summary: '从URL导入图片到图片题（仅本平台文件或允许的主机）', body: imageUrlsBodySchema },
      config: { study: fromBody, module, action: '图片URL导入' },
    },
    async (request) => {
      const results = await attachImageUrls(
        ctx,
        requireUser(request),
        requireStudy(request),
        request.body,
        request.host,
      );
      return ok(results, '图片已导入');
    },
  );

  void app.register(async (scope) => {
    await scope.register(multipart, {
      limits: { fileSize: DATA_IMPORT_LIMITS.fileBytes, files: 1, fields: 10 },
      throwFileSizeLimit: false,
    });
    const uploads = scope.withTypeProvider<ZodTypeProvider>();
    uploads.post(
      '/api/business/import/multi_crf_sheet/multi_thread',
      {
        schema: {
          tags,
          summary:
            '导入Excel数据（每个CRF一个工作表）。dryRun=true 只预览不写入；submitType 0 保存、1 提交；' +
            'mode=patient 按患者导入（有错误的患者不导入），mode=file 整体导入（有任何错误则不导入）',
          consumes: ['multipart/form-data'],
          querystring: importQuerySchema,
        },
        // The study is in the address: the membership guard runs before a byte of the file is read.
        config: { study: fromQuery, module, action: '导入数据' },
      },
      async (request) => {
        const user = requireUser(request);
        const access = requireStudy(request);
        const { dryRun, mode, submitType } = request.query;
        const part = await request.file();
        if (!part) throw AppError.badRequest('import.file_missing', '请选择要导入的文件');
        const data = await part.toBuffer();
        if (part.file.truncated) {
          throw AppError.badRequest(
            'import.too_large',
            `文件超过${Math.round(DATA_IMPORT_LIMITS.fileBytes / 1024 / 1024)}MB，请拆分后导入`,
          );
        }
        const sha256 = crypto.createHash('sha256').update(data).digest('hex');
        const sheets = await pool.read(data);
        if (dryRun) {
          const plan = await planImport(ctx, access, sheets, { submit: submitType === 1 });
          return ok(previewOf(plan, part.filename, sha256), '预览完成，尚未写入任何数据');
        }
        if (dataRows(sheets) > DATA_IMPORT_LIMITS.jobRows) {
          return ok(
            {
              job: jobSummary(await enqueue(user, access, data, part.filename, sha256, mode, submitType)),
              result: null,
            },
            '已开始导入，请在任务列表中查看进度',
          );
        }
        const plan = await planImport(ctx, access, sheets, { submit: submitType === 1, details: false });
        const result = await applyPlan(ctx, user, access, plan, { mode, submitType, sha256 });
        return ok({ job: null, result }, result.importedPatients > 0 ? '导入完成' : '没有导入任何数据');
      },
    );
  });

  async function enqueue(
    user: CurrentUser,
    access: StudyAccess,
    data: Buffer,
    fileName: string,
    sha256: string,
    mode: ImportMode,
    submitType: 0 | 1,
  ) {
    const fileKey = crypto.randomBytes(16).toString('hex');
    await ctx.files.put(importFileKey(fileKey), data);
    const payload: ImportJobPayload = {
      studyId: access.studyId,
      fileKey,
      fileName: fileName.slice(0, 200),
      sha256,
      mode,
      submitType,
      systemPermissions: user.permissions,
    };
    return ctx.jobs.enqueue(IMPORT_JOB_KIND, payload, { ownerId: user.userId, studyId: access.studyId });
  }
}
