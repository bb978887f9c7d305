import type { FastifyReply, FastifyRequest } from 'fastify';
import multipart, { type MultipartFile, type MultipartValue } from '@fastify/multipart';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  crfDeleteQuerySchema,
  crfExistingChoicesSchema,
  crfExportBodySchema,
  crfListQuerySchema,
  crfVersionQuerySchema,
  idParamSchema,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../http/app-error.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { pageRequest } from '../../http/paging.js';
import type { App } from '../../http/types.js';
import { studyOf } from '../../shared/study-of.js';
import { CRF_IMPORT_LIMITS, importLimitMessages } from '@ecrf/core/interop';
import * as crfService from './crf.service.js';
import { createCrfImportPool, type UploadedFile } from './crf-import.pool.js';
import { fromQuery, studyIdQuery } from '../../http/study-params.js';

const tags = ['CRF管理'];
const module = 'CRF管理';

type MultipartBody = Record<string, MultipartFile | MultipartFile[] | MultipartValue | undefined>;

function fieldValue(body: unknown, name: string): string | undefined {
  const field = (body as MultipartBody | undefined)?.[name];
  if (field && !Array.isArray(field) && field.type === 'field') return String(field.value);
  if (typeof field === 'string' || typeof field === 'number') return String(field);
  return undefined;
}

/** studyId from the query, a multipart field, or a JSON body. */
function uploadStudy(request: FastifyRequest): number | undefined {
  const raw = (request.query as { studyId?: string }).studyId ?? fieldValue(request.body, 'studyId');
  return raw === undefined ? undefined : Number(raw);
}

async function filesOf(request: FastifyRequest): Promise<UploadedFile[]> {
  const body = request.body as MultipartBody | undefined;
  const entries = Object.values(body ?? {}).flatMap((v) => (Array.isArray(v) ? v : v ? [v] : []));
  const files = entries.filter((e): e is MultipartFile => e.type === 'file');
  // The size cap truncates rather than throws, so the answer can be this route's own message.
  if (files.some((f) => f.file.truncated)) throw AppError.badRequest('crf.too_large', importLimitMessages.fileBytes());
  return Promise.all(files.map(async (f) => ({ fileName: f.filename, data: await f.toBuffer() })));
}

/**
 * The user's choices, from multipart fields (dryRun=1, onExisting as JSON text) or a JSON body:
 * `onExisting` maps a title the study already has to `version` (make its next version) or `new`.
 */
function choicesOf(request: FastifyRequest): crfService.UploadChoices {
  const body = request.body as { dryRun?: unknown; onExisting?: unknown; draft?: unknown } | undefined;
  const dryRunText = request.isMultipart() ? fieldValue(body, 'dryRun') : body?.dryRun;
  const draftText = request.isMultipart() ? fieldValue(body, 'draft') : body?.draft;
  let onExisting: unknown = request.isMultipart() ? fieldValue(body, 'onExisting') : body?.onExisting;
  if (typeof onExisting === 'string') {
    try {
      onExisting = onExisting.trim() === '' ? undefined : JSON.parse(onExisting);
    } catch {
      throw AppError.badRequest('crf.choice_invalid', 'onExisting 应为 JSON：{"表单标题": "version" 或 "new"}');
    }
  }
  const parsed = crfExistingChoicesSchema.optional().safeParse(onExisting);
  if (!parsed.success) {
    throw AppError.badRequest('crf.choice_invalid', 'onExisting 应为 JSON：{"表单标题": "version" 或 "new"}');
  }
  const yes = (v: unknown) => v === true || v === 'true' || v === '1' || v === 1;
  const dryRun = yes(dryRunText);
  return { dryRun, ...(yes(draftText) ? { draft: true } : {}), ...(parsed.data ? { onExisting: parsed.data } : {}) };
}

function sendFile(reply: FastifyReply, file: { fileName: string; type: string; data: Buffer }) {
  return reply
    .header('content-type', file.type)
    .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.fileName)}`)
    .send(file.data);
}

export function crfRoutes(app: App, ctx: AppContext) {
  const importer = createCrfImportPool();
  app.addHook('onClose', () => importer.close());
  app.get(
    '/api/system/crfs',
    {
      schema: {
        tags,
        summary: 'CRF分页列表',
        querystring: crfListQuerySchema,
      },
      config: { study: fromQuery },
    },
    async (request) =>
      ok(await crfService.listCrfs(ctx, request.query.studyId, request.query, pageRequest(request.query))),
  );
  app.get(
    '/api/system/crf/list',
    { schema: { tags, summary: '项目全部CRF', querystring: studyIdQuery }, config: { study: fromQuery } },
    async (request) => ok(await crfService.allCrfs(ctx, request.query.studyId)),
  );
  app.get('/api/system/crf/template', { schema: { tags, summary: '下载CRF的Excel模板' } }, async (_request, reply) =>
    sendFile(reply, {
      fileName: 'CRF模板.xlsx',
      type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      data: await crfService.excelTemplate(),
    }),
  );
  app.get(
    '/api/system/crf/:id',
    {
      schema: {
        tags,
        summary: 'CRF定义（默认最新版本）',
        params: idParamSchema,
        querystring: crfVersionQuerySchema,
      },
      config: { study: (request) => studyOf(ctx, 'crfs', (request.params as { id: number }).id) },
    },
    async (request) => ok(await crfService.getCrf(ctx, request.params.id, request.query.version)),
  );
  app.delete(
    '/api/system/crf',
    {
      schema: { tags, summary: '删除CRF', querystring: crfDeleteQuerySchema },
      config: { study: fromQuery, permission: 'study:crf', module, action: '删除' },
    },
    async (request) => {
      await crfService.deleteCrf(ctx, requireUser(request), request.query.studyId, request.query.crfId);
      return ok(null, '删除成功');
    },
  );
  app.post(
    '/api/system/crf/export',
    {
      schema: {
        tags,
        summary: '导出CRF（json / excel / odm / redcap 数据字典）',
        body: crfExportBodySchema,
      },
      config: { study: (request) => studyOf(ctx, 'crfs', (request.body as { crfId: number }).crfId) },
    },
    async (request, reply) =>
      sendFile(reply, await crfService.exportCrf(ctx, request.body.crfId, request.body.version, request.body.format)),
  );

  // Uploads parse multipart bodies (files buffered: CRF files are small) in their own scope.
  void app.register(async (scope) => {
    await scope.register(multipart, {
      attachFieldsToBody: true,
      limits: { fileSize: CRF_IMPORT_LIMITS.fileBytes, files: 20 },
      throwFileSizeLimit: false,
    });
    const uploads = scope.withTypeProvider<ZodTypeProvider>();

    uploads.post(
      '/api/system/crf',
      {
        schema: {
          tags,
          summary:
            '上传CRF（JSON、Excel、REDCap数据字典、ODM），或提交 { studyId, definition }。dryRun=1 只返回计划；' +
            '已存在的标题须在 onExisting 中选择 version（新版本）或 new（作为新CRF），否则 409 并返回计划；' +
            'draft=1 把已有CRF的新版本放入草稿（替换未发布的草稿），不发布',
          consumes: ['multipart/form-data', 'application/json'],
        },
        config: { study: uploadStudy, permission: 'study:crf', module, action: '上传' },
      },
      async (request) => {
        const user = requireUser(request);
        const studyId = uploadStudy(request)!;
        if (request.isMultipart()) {
          const [file, ...rest] = await filesOf(request);
          if (!file) throw AppError.badRequest('crf.file_missing', '请选择要上传的文件');
          if (rest.length > 0) {
            throw AppError.badRequest('crf.one_file', '一次只能上传一个文件，多个文件请使用批量上传');
          }
          const choices = choicesOf(request);
          const result = await crfService.uploadFile(ctx, importer, user, studyId, file, choices);
          return ok(result, choices.dryRun ? '已生成上传计划' : '上传成功');
        }
        const body = request.body as { definition?: unknown } | undefined;
        if (!body?.definition) throw AppError.badRequest('crf.definition_missing', '请提供CRF定义');
        const choices = choicesOf(request);
        const result = await crfService.uploadDefinition(ctx, user, studyId, body.definition, choices);
        return ok(result, choices.dryRun ? '已生成上传计划' : '上传成功');
      },
    );

    uploads.post(
      '/api/system/crf/multi',
      {
        schema: { tags, summary: '批量上传CRF文件（每个文件单独判断）', consumes: ['multipart/form-data'] },
        config: { study: uploadStudy, permission: 'study:crf', module, action: '批量上传' },
      },
      async (request) => {
        const user = requireUser(request);
        const studyId = uploadStudy(request)!;
        const files = await filesOf(request);
        if (files.length === 0) throw AppError.badRequest('crf.file_missing', '请选择要上传的文件');
        const choices = choicesOf(request);
        const results = [];
        for (const file of files) {
          try {
            results.push({
              fileName: file.fileName,
              ok: true,
              ...(await crfService.uploadFile(ctx, importer, user, studyId, file, choices)),
            });
          } catch (err) {
            if (!(err instanceof AppError)) throw err;
            const data = err.data as { errors?: unknown[]; plan?: unknown } | null;
            const errors = data?.errors ?? [{ path: '', message: err.message }];
            results.push({ fileName: file.fileName, ok: false, errors, ...(data?.plan ? { plan: data.plan } : {}) });
          }
        }
        return ok(results, results.every((r) => r.ok) ? '上传成功' : '部分文件未导入');
      },
    );
  });
}
