import type { FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  crfDataDeleteQuerySchema,
  crfDataListQuerySchema,
  crfDetailQuerySchema,
  crfOverviewQuerySchema,
  crfSaveBodySchema,
  crfSdvBodySchema,
  idParamSchema,
  subjectRecordIdParamSchema,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { MALFORMED_MSG, parseBoundedJson } from '../../http/input-bounds.js';
import { requireStudy } from '../../http/study-guard.js';
import type { App } from '../../http/types.js';
import { siteLocators } from '../../shared/patient-site.js';
import { operLogInTransaction } from '../monitor/operlog.service.js';
import { fromParam } from '../../http/study-params.js';
import { studyOf } from '../../shared/study-of.js';
import * as crfData from './crf-data.service.js';

const crfTags = ['CRF录入'];

/** `values` is an object in a JSON body and JSON text in form data (CRF-22); both meet the body bounds. */
const saveValues = z.preprocess((value, check) => {
  if (typeof value !== 'string') return value;
  const parsed = parseBoundedJson(value);
  if (parsed.ok) return parsed.value;
  check.addIssue({
    code: 'custom',
    message: parsed.problem === 'syntax' ? 'values 不是有效的 JSON' : MALFORMED_MSG,
    input: value,
  });
  return z.NEVER;
}, crfSaveBodySchema.shape.values);

/** `missing` likewise: an object in JSON, JSON text in form data. */
const saveMissing = z.preprocess((value, check) => {
  if (typeof value !== 'string') return value;
  const parsed = parseBoundedJson(value);
  if (parsed.ok) return parsed.value;
  check.addIssue({ code: 'custom', message: 'missing 不是有效的 JSON', input: value });
  return z.NEVER;
}, crfSaveBodySchema.shape.missing);

/** The save body of core's contract, its `values` and `missing` also read from form-data text. */
const saveBody = crfSaveBodySchema.extend({ values: saveValues, missing: saveMissing });

export function crfDataRoutes(app: App, ctx: AppContext) {
  const recordStudy = (v: number | undefined) => (v === undefined ? undefined : studyOf(ctx, 'subjectRecords', v));
  const dataStudy = (v: number | undefined) => (v === undefined ? undefined : studyOf(ctx, 'crfDataRecords', v));
  const q = <T>(r: FastifyRequest) => r.query as T;
  const b = <T>(r: FastifyRequest) => r.body as T;

  app.get(
    '/api/business/crf/menu/:id',
    {
      schema: { tags: crfTags, summary: 'CRF菜单（阶段与表单状态）', params: idParamSchema },
      // `id` is a subject record's: the guard's automatic keys do not see it.
      config: { study: (r) => recordStudy(fromParam(r)), site: siteLocators(ctx).ofRecord(fromParam) },
    },
    async (request) => ok(await crfData.crfMenu(ctx, requireStudy(request), request.params.id)),
  );
  app.get(
    '/api/v3/business/crf/:subjectRecordId',
    {
      schema: {
        tags: crfTags,
        summary: '表单详情',
        params: subjectRecordIdParamSchema,
        querystring: crfDetailQuerySchema,
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
        params: subjectRecordIdParamSchema,
        querystring: crfDataListQuerySchema,
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
        querystring: crfDataDeleteQuerySchema,
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
  app.put(
    '/api/business/crf/sdv',
    {
      schema: {
        tags: crfTags,
        summary: 'SDV核查标记',
        body: crfSdvBodySchema,
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
        params: subjectRecordIdParamSchema,
        querystring: crfOverviewQuerySchema,
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
      async (request, reply) => {
        const msg = request.body.submit ? '提交成功' : '保存成功';
        const operLog = operLogInTransaction(ctx, request, reply, msg);
        const result = await crfData.saveCrf(
          ctx,
          requireUser(request),
          requireStudy(request),
          request.body,
          operLog.cte,
        );
        // An answer repeated from an earlier attempt wrote nothing: its row comes from the hook, as a failure's does.
        if (!('repeated' in result)) operLog.written();
        return ok(result, msg);
      },
    );
  });
}
