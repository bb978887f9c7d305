import type { FastifyReply, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../http/app-error.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { pageRequest, pagingQuery } from '../../http/paging.js';
import { canViewCrf, requireStudy } from '../../http/study-guard.js';
import type { App } from '../../http/types.js';
import { studyOfCrf } from '../study/crf.service.js';
import { fromBody, fromParam, fromQuery, studyIdQuery } from '../study/study.routes.js';
import * as auditService from './audit.service.js';
import * as crfData from './crf-data.service.js';
import * as files from './file.service.js';
import { studyIndex } from './home.service.js';
import * as print from './print.service.js';
import * as subjectsService from './subject.service.js';
import { MAX_ROW_ID, idSchema, idTextSchema } from '../../http/ids.js';
import { MALFORMED_MSG, isStorableText, malformedInput, parseBoundedJson } from '../../http/input-bounds.js';

const subjectTags = ['患者'];
const crfTags = ['CRF录入'];
const id = idTextSchema;

const subjectFields = {
  identificationCode: z.string().trim().max(50).nullish(),
  subjectName: z.string({ error: '请输入患者姓名' }).trim().min(1, '请输入患者姓名').max(50),
  gender: z.union([z.literal(0), z.literal(1)], { error: '请选择患者性别' }),
  birth: z.string().max(10).nullish(),
  mobile: z.string().max(20).nullish(),
  idNumber: z.string().max(30).nullish(),
  diseaseCode: z.string({ error: '请选择病种' }).trim().min(1, '请选择病种').max(50),
  deptId: idSchema.nullish(),
};

const recordFilter = {
  identificationCode: z.string().trim().optional(),
  subjectName: z.string().trim().optional(),
  diseaseCode: z.string().trim().optional(),
  state: z.coerce.number().int().min(0).max(2).optional(),
  beginDate: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .optional(),
  endDate: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .optional(),
  deleted: z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]).optional(),
};

const formFlag = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

/** `values` is an object in a JSON body and JSON text in form data (CRF-22); both meet the body bounds. */
const saveValues = z.preprocess(
  (value, check) => {
    if (typeof value !== 'string') return value;
    const parsed = parseBoundedJson(value);
    if (parsed.ok) return parsed.value;
    check.addIssue({
      code: 'custom',
      message: parsed.problem === 'syntax' ? 'values 不是有效的 JSON' : MALFORMED_MSG,
      input: value,
    });
    return z.NEVER;
  },
  z.record(z.string(), z.unknown()),
);

/** The save body as the web client sends it (crf.api.ts CrfSaveBody), as JSON or as form-data text. */
const saveBody = z.object({
  subjectRecordId: idTextSchema,
  crfId: idTextSchema,
  crfDataRecordId: idTextSchema.nullish(),
  version: z.coerce.number().int().min(0).max(MAX_ROW_ID).nullish(),
  values: saveValues,
  submit: formFlag.optional(),
  reason: z.string().max(500).nullish(),
  requestId: z.string().max(64).nullish(),
});

function sendFile(reply: FastifyReply, file: { fileName: string; type: string; data: Buffer }, inline = false) {
  return reply
    .header('content-type', file.type)
    .header(
      'content-disposition',
      `${inline ? 'inline' : 'attachment'}; filename*=UTF-8''${encodeURIComponent(file.fileName)}`,
    )
    .send(file.data);
}

export function captureRoutes(app: App, ctx: AppContext) {
  const recordStudy = (v: number | undefined) => (v === undefined ? undefined : subjectsService.studyOfRecord(ctx, v));
  const dataStudy = (v: number | undefined) => (v === undefined ? undefined : crfData.studyOfDataRecord(ctx, v));
  const q = <T>(r: FastifyRequest) => r.query as T;
  const b = <T>(r: FastifyRequest) => r.body as T;

  app.get(
    '/api/v2/business/subject/crf',
    {
      schema: { tags: subjectTags, summary: '患者表单模型（基础信息配置）', querystring: studyIdQuery },
      config: { study: fromQuery },
    },
    async (request) => ok(await subjectsService.subjectFormModel(ctx, request.query.studyId)),
  );
  app.get(
    '/api/business/subject/unique',
    {
      schema: {
        tags: subjectTags,
        summary: '编号是否已存在',
        querystring: studyIdQuery.extend({ identificationCode: z.string().trim().min(1) }),
      },
      config: { study: fromQuery },
    },
    async (request) =>
      ok(await subjectsService.isCodeTaken(ctx.db, request.query.studyId, request.query.identificationCode)),
  );
  app.post(
    '/api/business/subject',
    {
      schema: { tags: subjectTags, summary: '添加患者', body: z.object({ studyId: idSchema, ...subjectFields }) },
      config: { study: fromBody, module: '患者管理', action: '新增' },
    },
    async (request) =>
      ok(
        await subjectsService.createSubject(
          ctx,
          requireUser(request),
          requireStudy(request),
          request.body.studyId,
          request.body,
        ),
        '添加成功',
      ),
  );
  app.put(
    '/api/business/subject',
    {
      // Partial: a field left out of the body keeps its stored value.
      schema: {
        tags: subjectTags,
        summary: '编辑患者',
        body: z.object({ id: idSchema, ...z.object(subjectFields).partial().shape }),
      },
      config: {
        study: (r) => subjectsService.studyOfSubject(ctx, b<{ id: number }>(r).id),
        module: '患者管理',
        action: '修改',
      },
    },
    async (request) =>
      ok(
        await subjectsService.updateSubject(
          ctx,
          requireUser(request),
          requireStudy(request),
          request.body.id,
          request.body,
        ),
        '修改成功',
      ),
  );
  app.get(
    '/api/business/subject/signatures',
    {
      schema: { tags: subjectTags, summary: '患者签名记录', querystring: z.object({ subjectRecordId: id }) },
      config: { study: (r) => recordStudy(q<{ subjectRecordId: number }>(r).subjectRecordId) },
    },
    async (request) => ok(await subjectsService.listSignatures(ctx, request.query.subjectRecordId)),
  );
  app.get(
    '/api/business/subject/:id',
    {
      schema: { tags: subjectTags, summary: '患者详情', params: z.object({ id }) },
      config: { study: (r) => subjectsService.studyOfSubject(ctx, fromParam(r)!) },
    },
    async (request) => ok(await subjectsService.getSubject(ctx, request.params.id, requireStudy(request))),
  );
  app.get(
    '/api/business/ducking/patientInfo/:id',
    {
      schema: { tags: subjectTags, summary: '患者信息（按受试者记录）', params: z.object({ id }) },
      config: { study: (r) => recordStudy(fromParam(r)) },
    },
    async (request) => ok(await subjectsService.getSubjectByRecord(ctx, request.params.id, requireStudy(request))),
  );
  app.put(
    '/api/v1/business/subject/sign',
    {
      schema: {
        tags: subjectTags,
        summary: '研究者电子签名',
        body: z.object({
          subjectRecordId: idSchema,
          password: z.string().min(1, '请输入密码').max(100),
          meaning: z.string().max(200).optional(),
        }),
      },
      config: {
        study: (r) => recordStudy(b<{ subjectRecordId: number }>(r).subjectRecordId),
        module: '患者管理',
        action: '签名',
      },
    },
    async (request) =>
      ok(
        await subjectsService.signRecord(
          ctx,
          requireUser(request),
          requireStudy(request),
          request.body.subjectRecordId,
          request.body.password,
          request.body.meaning,
        ),
        '签名成功',
      ),
  );

  app.post(
    '/api/v3/business/subjectRecord/list',
    {
      schema: {
        tags: subjectTags,
        summary: '患者列表（v3）',
        body: z.object({ studyId: idSchema, ...pagingQuery, ...recordFilter }),
      },
      config: { study: fromBody, readOnly: true },
    },
    async (request) =>
      ok(
        await subjectsService.listRecords(
          ctx,
          request.body.studyId,
          request.body,
          pageRequest(request.body),
          requireStudy(request),
        ),
      ),
  );
  for (const version of ['v1', 'v2'] as const) {
    app.get(
      `/api/${version}/business/subjectRecord/list`,
      {
        schema: {
          tags: subjectTags,
          summary: `患者列表（${version}）`,
          querystring: studyIdQuery.extend({ ...pagingQuery, ...recordFilter }),
        },
        config: { study: fromQuery },
      },
      async (request) =>
        ok(
          await subjectsService.listRecords(
            ctx,
            request.query.studyId,
            request.query,
            pageRequest(request.query),
            requireStudy(request),
          ),
        ),
    );
  }
  for (const version of ['v1', 'v2', 'v3'] as const) {
    app.get(
      `/api/${version}/business/subjectRecord/columns`,
      {
        schema: { tags: subjectTags, summary: `患者列表列（${version}）`, querystring: studyIdQuery },
        config: { study: fromQuery },
      },
      async (request) => ok(await subjectsService.recordColumns(ctx, request.query.studyId)),
    );
  }
  app.put(
    '/api/business/subjectRecord/state',
    {
      schema: {
        tags: subjectTags,
        summary: '修改受试者状态（0 在组 1 完成 2 退出）',
        body: z.object({
          subjectRecordId: idSchema,
          state: z.union([z.literal(0), z.literal(1), z.literal(2)]),
          reason: z.string().max(500).optional(),
        }),
      },
      config: {
        study: (r) => recordStudy(b<{ subjectRecordId: number }>(r).subjectRecordId),
        module: '患者管理',
        action: '修改状态',
      },
    },
    async (request) => {
      await subjectsService.setRecordState(
        ctx,
        requireUser(request),
        requireStudy(request),
        request.body.subjectRecordId,
        request.body.state,
        request.body.reason,
      );
      return ok(null, '操作成功');
    },
  );
  app.delete(
    '/api/business/subjectRecord',
    {
      schema: {
        tags: subjectTags,
        summary: '删除患者（可恢复）',
        querystring: z.object({
          subjectRecordId: id,
          reason: z.string({ error: '请填写删除原因' }).trim().min(1, '请填写删除原因').max(500),
        }),
      },
      config: {
        study: (r) => recordStudy(q<{ subjectRecordId: number }>(r).subjectRecordId),
        module: '患者管理',
        action: '删除',
      },
    },
    async (request) => {
      await subjectsService.deleteRecord(
        ctx,
        requireUser(request),
        requireStudy(request),
        request.query.subjectRecordId,
        request.query.reason,
      );
      return ok(null, '删除成功');
    },
  );
  app.put(
    '/api/business/subjectRecord/restore',
    {
      schema: {
        tags: subjectTags,
        summary: '恢复已删除的患者',
        body: z.object({ subjectRecordId: idSchema, reason: z.string().trim().min(1, '请填写恢复原因').max(500) }),
      },
      config: {
        study: (r) => recordStudy(b<{ subjectRecordId: number }>(r).subjectRecordId),
        module: '患者管理',
        action: '恢复',
      },
    },
    async (request) => {
      await subjectsService.deleteRecord(
        ctx,
        requireUser(request),
        requireStudy(request),
        request.body.subjectRecordId,
        request.body.reason,
        true,
      );
      return ok(null, '恢复成功');
    },
  );
  app.get(
    '/api/business/subjectRecord/operates',
    {
      schema: {
        tags: subjectTags,
        summary: '患者操作记录（稽查轨迹）',
        querystring: z.object({ subjectRecordId: id, ...pagingQuery }),
      },
      config: { study: (r) => recordStudy(q<{ subjectRecordId: number }>(r).subjectRecordId) },
    },
    async (request) =>
      ok(
        await auditService.subjectHistory(
          ctx,
          requireStudy(request),
          request.query.subjectRecordId,
          pageRequest(request.query),
        ),
      ),
  );
  app.get(
    '/api/business/subjectRecord/operate',
    {
      schema: { tags: subjectTags, summary: '一条操作记录', querystring: z.object({ id }) },
      config: { study: async (r) => (await auditService.auditEvent(ctx, q<{ id: number }>(r).id))?.studyId },
    },
    async (request) => {
      const event = await auditService.readableEvent(ctx, requireStudy(request), request.query.id);
      if (!event) throw AppError.forbidden();
      return ok(event);
    },
  );

  app.get(
    '/api/business/crf/menu/:id',
    {
      schema: { tags: crfTags, summary: 'CRF菜单（阶段与表单状态）', params: z.object({ id }) },
      config: { study: (r) => recordStudy(fromParam(r)) },
    },
    async (request) => ok(await crfData.crfMenu(ctx, requireStudy(request), request.params.id)),
  );
  app.get(
    '/api/v3/business/crf/:subjectRecordId',
    {
      schema: {
        tags: crfTags,
        summary: '表单详情',
        params: z.object({ subjectRecordId: id }),
        querystring: z.object({ crfId: id, crfDataRecordId: id.optional() }),
      },
      config: { study: (r) => recordStudy((r.params as { subjectRecordId: number }).subjectRecordId) },
    },
    async (request) =>
      ok(
        await crfData.crfDetail(
          ctx,
          requireStudy(request),
          request.params.subjectRecordId,
          request.query.crfId,
          request.query.crfDataRecordId,
        ),
      ),
  );
  app.get(
    '/api/business/crf/data/list/:subjectRecordId',
    {
      schema: {
        tags: crfTags,
        summary: '可重复表单的记录列表',
        params: z.object({ subjectRecordId: id }),
        querystring: z.object({ crfId: id }),
      },
      config: { study: (r) => recordStudy((r.params as { subjectRecordId: number }).subjectRecordId) },
    },
    async (request) =>
      ok(await crfData.dataList(ctx, requireStudy(request), request.params.subjectRecordId, request.query.crfId)),
  );
  app.delete(
    '/api/business/crf/data',
    {
      schema: {
        tags: crfTags,
        summary: '删除一条表单记录',
        querystring: z.object({
          crfDataRecordId: id,
          reason: z.string({ error: '请填写删除原因' }).trim().min(1, '请填写删除原因').max(500),
        }),
      },
      config: {
        study: (r) => dataStudy(q<{ crfDataRecordId: number }>(r).crfDataRecordId),
        module: 'CRF录入',
        action: '删除记录',
      },
    },
    async (request) => {
      await crfData.deleteData(
        ctx,
        requireUser(request),
        requireStudy(request),
        request.query.crfDataRecordId,
        request.query.reason,
      );
      return ok(null, '删除成功');
    },
  );
  app.get(
    '/api/business/crf/audit',
    {
      schema: {
        tags: crfTags,
        summary: '题目或表单的修改历史',
        querystring: z.object({ crfDataRecordId: id, itemName: z.string().optional() }),
      },
      config: { study: (r) => dataStudy(q<{ crfDataRecordId: number }>(r).crfDataRecordId) },
    },
    async (request) => {
      const crfId = await crfData.dataRecordCrf(ctx, request.query.crfDataRecordId);
      const access = requireStudy(request);
      if (!canViewCrf(access, crfId)) throw AppError.forbidden();
      return ok(await auditService.recordHistory(ctx, access, request.query.crfDataRecordId, request.query.itemName));
    },
  );
  app.put(
    '/api/business/crf/sdv',
    {
      schema: {
        tags: crfTags,
        summary: 'SDV核查标记',
        body: z.object({
          crfDataRecordId: idSchema,
          itemNames: z.array(z.string().max(100)).max(2000).optional(),
          verified: z.boolean(),
        }),
      },
      config: {
        study: (r) => dataStudy(b<{ crfDataRecordId: number }>(r).crfDataRecordId),
        module: 'CRF录入',
        action: 'SDV',
      },
    },
    async (request) =>
      ok(await crfData.setSdv(ctx, requireUser(request), requireStudy(request), request.body), '操作成功'),
  );
  app.get(
    '/api/v3/business/overview/:subjectRecordId',
    {
      schema: {
        tags: crfTags,
        summary: 'CRF概览',
        params: z.object({ subjectRecordId: id }),
        querystring: z.object({ crfId: id.optional(), crfDataRecordId: id.optional() }),
      },
      config: { study: (r) => recordStudy((r.params as { subjectRecordId: number }).subjectRecordId) },
    },
    async (request) =>
      ok(
        await crfData.overview(
          ctx,
          requireStudy(request),
          request.params.subjectRecordId,
          request.query.crfId,
          request.query.crfDataRecordId,
        ),
      ),
  );
  app.get(
    '/api/business/audit/export',
    {
      schema: {
        tags: crfTags,
        summary:
          '导出稽查轨迹（CSV）：整个项目（监查员），或一位患者、一条表单记录、一个题目的（与页面相同的查看权限）',
        querystring: z
          .object({
            studyId: id.optional(),
            subjectRecordId: id.optional(),
            crfDataRecordId: id.optional(),
            itemName: z.string().max(100).optional(),
          })
          .refine((v) => v.studyId || v.subjectRecordId || v.crfDataRecordId, { message: '请指定项目' }),
      },
      // The study of what is exported: of the record or patient when one is named, else the one given.
      config: {
        study: (r) => {
          const scope = q<{ studyId?: number; subjectRecordId?: number; crfDataRecordId?: number }>(r);
          if (scope.crfDataRecordId) return dataStudy(scope.crfDataRecordId);
          if (scope.subjectRecordId) return recordStudy(scope.subjectRecordId);
          return scope.studyId;
        },
      },
    },
    async (request, reply) => {
      const access = requireStudy(request);
      const { subjectRecordId, crfDataRecordId, itemName } = request.query;
      if (crfDataRecordId) {
        // What the record's history drawer shows, under the same rule.
        if (!canViewCrf(access, await crfData.dataRecordCrf(ctx, crfDataRecordId))) throw AppError.forbidden();
      } else if (!subjectRecordId && !access.all && !access.permissions.includes('btn:business.crf.sdv')) {
        // The whole study's trail in one file is the monitors' (and study:manage holders').
        throw AppError.forbidden();
      }
      const csv = await auditService.exportStudyAudit(ctx, access, access.studyId, {
        subjectRecordId,
        crfDataRecordId,
        itemName,
      });
      const scope = crfDataRecordId ? `-记录${crfDataRecordId}` : subjectRecordId ? `-受试者${subjectRecordId}` : '';
      return sendFile(reply, {
        fileName: `稽查轨迹-${access.studyId}${scope}.csv`,
        type: 'text/csv; charset=utf-8',
        data: Buffer.from(csv),
      });
    },
  );
  app.get(
    '/api/business/index',
    {
      schema: { tags: ['项目首页'], summary: '项目首页统计', querystring: studyIdQuery },
      config: { study: fromQuery },
    },
    async (request) => ok(await studyIndex(ctx, request.query.studyId, requireStudy(request).timeZone)),
  );

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
      if (!(await files.mayReadFile(ctx, requireUser(request), requireStudy(request), request.query.fileKey))) {
        throw AppError.forbidden();
      }
      const { row, stream } = await files.openFile(ctx, request.query.fileKey);
      return reply
        .headers(files.servingHeaders(row.contentType, row.fileName))
        .header('content-length', row.size)
        .send(stream);
    },
  );

  const crfOfQuery = (r: FastifyRequest) => q<{ crfId: number }>(r).crfId;
  const crfStudy = async (r: FastifyRequest) => {
    const crfId = crfOfQuery(r);
    return crfId ? studyOfCrf(ctx, crfId) : undefined;
  };
  app.get(
    '/api/v1/business/crf/print/is_temp',
    {
      schema: { tags: ['打印'], summary: '表单是否有打印模板', querystring: z.object({ crfId: id }) },
      config: { study: crfStudy },
    },
    async (request) => ok(await print.hasTemplate(ctx, request.query.crfId)),
  );
  app.get(
    '/api/v1/business/crf/print/temp',
    {
      schema: { tags: ['打印'], summary: '打印模板信息', querystring: z.object({ crfId: id }) },
      config: { study: crfStudy },
    },
    async (request) => ok(await print.templateInfo(ctx, request.query.crfId)),
  );
  app.delete(
    '/api/v1/business/crf/print/temp',
    {
      schema: { tags: ['打印'], summary: '删除打印模板', querystring: z.object({ crfId: id }) },
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
        querystring: z.object({
          subjectRecordId: id,
          crfId: id,
          crfDataRecordId: id.optional(),
          format: z.enum(['docx', 'pdf']).default('docx'),
        }),
      },
      config: { study: (r) => recordStudy(q<{ subjectRecordId: number }>(r).subjectRecordId) },
    },
    async (request, reply) => {
      const access = requireStudy(request);
      if (!access.all && !access.permissions.includes(`crf:${request.query.crfId}:view`)) throw AppError.forbidden();
      return sendFile(reply, await print.printWord(ctx, access, request.query), true);
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

    for (const method of ['POST', 'PUT'] as const) {
      uploads.route({
        method,
        url: '/api/v1/business/crf/print/temp',
        schema: {
          tags: ['打印'],
          summary: method === 'POST' ? '上传打印模板（.docx）' : '替换打印模板',
          querystring: z.object({ crfId: id }),
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
          await print.saveTemplate(ctx, requireStudy(request).studyId, request.query.crfId, file.filename, data);
          return ok(await print.templateInfo(ctx, request.query.crfId), '上传成功');
        },
      });
    }
  });

  // Form data for a save is small: its fields become plain text in the body, validated like JSON.
  void app.register(async (scope) => {
    await scope.register(multipart, {
      attachFieldsToBody: 'keyValues',
      limits: { fileSize: 1, files: 0, fieldSize: 5 * 1024 * 1024 },
    });
    const forms = scope.withTypeProvider<ZodTypeProvider>();
    forms.put(
      '/api/v3/business/crf',
      {
        schema: {
          tags: crfTags,
          summary: '保存或提交表单（JSON 或 form-data）',
          consumes: ['application/json', 'multipart/form-data'],
          body: saveBody,
        },
        config: {
          study: (r) => recordStudy(b<{ subjectRecordId: number }>(r).subjectRecordId),
          module: 'CRF录入',
          action: '保存表单',
        },
      },
      async (request) => {
        const result = await crfData.saveCrf(ctx, requireUser(request), requireStudy(request), request.body);
        return ok(result, request.body.submit ? '提交成功' : '保存成功');
      },
    );
  });
}
