import multipart from '@fastify/multipart';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  buttonKey,
  idParamSchema,
  LAB_RANGE_MSG,
  labRangeApplicableQuerySchema,
  labRangeCreateBodySchema,
  labRangeDeleteQuerySchema,
  labRangeImportQuerySchema,
  labRangeListQuerySchema,
  labRangeUpdateBodySchema,
  studyIdQuerySchema,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { requireStudy } from '../../http/study-guard.js';
import { fromBody, fromQuery } from '../../http/study-params.js';
import type { App } from '../../http/types.js';
import { AppError } from '../../shared/app-error.js';
import { applicableLabRanges } from '../crf-data/applicable-lab-ranges.service.js';
import { rowsOfUpload, templateWorkbook } from './lab-range-files.js';
import * as labRanges from './lab-ranges.service.js';

const tags = ['参考范围'];
const module = '参考范围';
const studyPermission = buttonKey('business.labRanges');
/** A site's ranges are some hundred rows: a megabyte is far more than any. */
const FILE_BYTES = 2 * 1024 * 1024;

/**
 * 参考范围 (issue 37). Every route needs study membership and the study key 参考范围 (but `applicable`, the form
 * page's); the service keeps a member without 查看全部中心数据 to the ranges of their own sites.
 */
export function labRangeRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/business/lab-ranges',
    {
      schema: { tags, summary: '参考范围列表（按分中心、项目代码）', querystring: labRangeListQuerySchema },
      config: { study: fromQuery, studyPermission },
    },
    async (request) => ok(await labRanges.listRanges(ctx, requireStudy(request), request.query)),
  );
  // The form page's, not the settings': any member who may view the form (the service checks its view key); the
  // guard answers 404 for a patient of a site the caller does not see (subjectRecordId in the query).
  app.get(
    '/api/business/lab-ranges/applicable',
    {
      schema: {
        tags,
        summary: '表单保存时将采用的分中心参考范围（按题目：下限、上限、单位）',
        querystring: labRangeApplicableQuerySchema,
      },
      config: { study: fromQuery },
    },
    async (request) => ok(await applicableLabRanges(ctx, requireStudy(request), request.query)),
  );
  app.post(
    '/api/business/lab-ranges',
    {
      schema: { tags, summary: '添加参考范围', body: labRangeCreateBodySchema },
      config: { study: fromBody, studyPermission, module, action: '添加参考范围' },
    },
    async (request) =>
      ok(
        await labRanges.createRange(ctx, requireUser(request), requireStudy(request), request.body),
        LAB_RANGE_MSG.created,
      ),
  );
  app.put(
    '/api/business/lab-ranges/:id',
    {
      schema: { tags, summary: '修改参考范围（须填写原因）', params: idParamSchema, body: labRangeUpdateBodySchema },
      config: { study: fromBody, studyPermission, module, action: '修改参考范围' },
    },
    async (request) =>
      ok(
        await labRanges.updateRange(ctx, requireUser(request), requireStudy(request), request.params.id, request.body),
        LAB_RANGE_MSG.updated,
      ),
  );
  app.delete(
    '/api/business/lab-ranges/:id',
    {
      schema: {
        tags,
        summary: '删除参考范围（须填写原因）',
        params: idParamSchema,
        querystring: labRangeDeleteQuerySchema,
      },
      config: { study: fromQuery, studyPermission, module, action: '删除参考范围' },
    },
    async (request) => {
      const { id } = request.params;
      await labRanges.deleteRange(ctx, requireUser(request), requireStudy(request), id, request.query.reason);
      return ok(null, LAB_RANGE_MSG.deleted);
    },
  );
  app.get(
    '/api/business/lab-ranges/template',
    {
      schema: { tags, summary: '下载参考范围导入模板', querystring: studyIdQuerySchema },
      config: { study: fromQuery, studyPermission },
    },
    async (request, reply) => {
      const sites = await labRanges.sitesFor(ctx.db, requireStudy(request));
      const data = await templateWorkbook(sites.map((s) => s.deptName));
      return reply
        .header('content-type', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
        .header('x-content-type-options', 'nosniff')
        .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent('参考范围导入模板.xlsx')}`)
        .send(data);
    },
  );

  void app.register(async (scope) => {
    await scope.register(multipart, {
      limits: { fileSize: FILE_BYTES, files: 1, fields: 5 },
      throwFileSizeLimit: false,
    });
    scope.withTypeProvider<ZodTypeProvider>().post(
      '/api/business/lab-ranges/import',
      {
        schema: {
          tags,
          summary:
            '导入参考范围（Excel .xlsx 或 CSV；列：分中心、项目代码、项目名称、单位、性别、年龄下限、年龄上限、下限、上限、' +
            '生效日期）。dryRun=true 只预览（列出不能导入的行及原因）；有不能导入的行时整个文件不导入',
          consumes: ['multipart/form-data'],
          querystring: labRangeImportQuerySchema,
        },
        // The study is in the address: the membership and permission guards run before a byte is read.
        config: { study: fromQuery, studyPermission, module, action: '导入参考范围' },
      },
      async (request) => {
        const user = requireUser(request);
        const access = requireStudy(request);
        const file = await request.file();
        if (!file) throw AppError.badRequest('lab_range.no_file', LAB_RANGE_MSG.badFile);
        const data = await file.toBuffer();
        if (file.file.truncated) throw AppError.badRequest('lab_range.too_large', LAB_RANGE_MSG.badFile);
        const rows = await rowsOfUpload(file.filename, data);
        const dryRun = request.query.dryRun === 'true';
        const result = await labRanges.importRanges(ctx, user, access, rows, dryRun);
        return ok(result, dryRun ? '' : LAB_RANGE_MSG.imported);
      },
    );
  });
}
