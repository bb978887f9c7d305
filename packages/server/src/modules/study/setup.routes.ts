import {
  diseaseCreateBodySchema,
  diseaseCrfsBodySchema,
  diseaseCrfsQuerySchema,
  diseaseUpdateBodySchema,
  idParamSchema,
  multiDiseaseBodySchema,
  stageCreateBodySchema,
  stageCrfImportBodySchema,
  stageCrfRemoveQuerySchema,
  stageCrfUpdateBodySchema,
  stageUpdateBodySchema,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import type { App } from '../../http/types.js';
import { studyOf } from '../../shared/study-of.js';
import * as setup from './setup.service.js';
import { fromBody, fromParam, fromQuery, studyIdQuery } from '../../http/study-params.js';

const stageTags = ['ECRF阶段'];
const diseaseTags = ['病种'];
const idQuery = idParamSchema;

export function setupRoutes(app: App, ctx: AppContext) {
  const stageOf = (id: number | undefined) => (id === undefined ? undefined : studyOf(ctx, 'crfStages', id));
  const diseaseOf = (id: number | undefined) => (id === undefined ? undefined : studyOf(ctx, 'studyDiseases', id));
  const stageWrite = { permission: 'study:crfStage', module: 'ECRF阶段' } as const;
  const diseaseWrite = { permission: 'study:config', module: '病种' } as const;

  app.get(
    '/api/business/crf_menu/crf_stages',
    {
      schema: { tags: stageTags, summary: '阶段树（含表单）', querystring: studyIdQuery },
      config: { study: fromQuery },
    },
    async (request) => ok(await setup.stageTree(ctx, request.query.studyId)),
  );
  app.get(
    '/api/business/crf_menu/crf_stage',
    {
      schema: { tags: stageTags, summary: '阶段详情', querystring: idQuery },
      config: { study: (r) => stageOf((r.query as { id: number }).id) },
    },
    async (request) => ok(await setup.getStage(ctx, request.query.id)),
  );
  app.post(
    '/api/business/crf_menu/crf_stage',
    {
      schema: {
        tags: stageTags,
        summary: '新增阶段',
        body: stageCreateBodySchema,
      },
      config: { study: fromBody, ...stageWrite, action: '新增' },
    },
    async (request) => ok(await setup.createStage(ctx, requireUser(request), request.body), '新增成功'),
  );
  app.put(
    '/api/business/crf_menu/crf_stage',
    {
      schema: {
        tags: stageTags,
        summary: '修改阶段',
        body: stageUpdateBodySchema,
      },
      config: { study: (r) => stageOf((r.body as { id: number }).id), ...stageWrite, action: '修改' },
    },
    async (request) => ok(await setup.updateStage(ctx, requireUser(request), request.body), '修改成功'),
  );
  app.delete(
    '/api/business/crf_menu/crf_stage',
    {
      schema: { tags: stageTags, summary: '删除阶段', querystring: idQuery },
      config: { study: (r) => stageOf((r.query as { id: number }).id), ...stageWrite, action: '删除' },
    },
    async (request) => {
      await setup.deleteStage(ctx, requireUser(request), request.query.id);
      return ok(null, '删除成功');
    },
  );
  app.get(
    '/api/business/crf_menu/crf_stage/crfs',
    {
      schema: { tags: stageTags, summary: '阶段的表单', querystring: idQuery },
      config: { study: (r) => stageOf((r.query as { id: number }).id) },
    },
    async (request) => ok(await setup.stageCrfs(ctx, request.query.id)),
  );
  app.post(
    '/api/business/crf_menu/crf_stage/crf/import',
    {
      schema: {
        tags: stageTags,
        summary: '把表单加入阶段',
        body: stageCrfImportBodySchema,
      },
      config: {
        study: (r) => stageOf((r.body as { crfStageId: number }).crfStageId),
        ...stageWrite,
        action: '导入表单',
      },
    },
    async (request) => {
      await setup.importCrfsIntoStage(ctx, requireUser(request), request.body);
      return ok(null, '导入成功');
    },
  );
  app.put(
    '/api/business/crf_menu/crf_stage/crf',
    {
      schema: {
        tags: stageTags,
        summary: '修改阶段中的表单（单次/可重复、顺序）',
        body: stageCrfUpdateBodySchema,
      },
      config: {
        study: (r) => stageOf((r.body as { crfStageId: number }).crfStageId),
        ...stageWrite,
        action: '修改表单',
      },
    },
    async (request) => {
      await setup.updateStageCrf(ctx, requireUser(request), request.body);
      return ok(null, '修改成功');
    },
  );
  app.delete(
    '/api/business/crf_menu/crf_stage/crf',
    {
      schema: {
        tags: stageTags,
        summary: '从阶段移除表单',
        querystring: stageCrfRemoveQuerySchema,
      },
      config: {
        study: (r) => stageOf((r.query as { crfStageId: number }).crfStageId),
        ...stageWrite,
        action: '移除表单',
      },
    },
    async (request) => {
      await setup.removeCrfFromStage(ctx, requireUser(request), request.query.crfStageId, request.query.crfId);
      return ok(null, '移除成功');
    },
  );

  app.get(
    '/api/business/study_disease/disease/crf/:id',
    {
      schema: { tags: diseaseTags, summary: '病种使用的表单', params: idParamSchema },
      config: { study: (r) => diseaseOf((r.params as { id: number }).id) },
    },
    async (request) => ok(await setup.diseaseCrfs(ctx, request.params.id)),
  );
  app.get(
    '/api/business/study_disease/:id',
    {
      schema: { tags: diseaseTags, summary: '项目病种（id 为项目）', params: idParamSchema },
      config: { study: fromParam },
    },
    async (request) => ok(await setup.diseasesOf(ctx, request.params.id)),
  );
  app.put(
    '/api/business/study_disease/multi_disease',
    {
      schema: {
        tags: diseaseTags,
        summary: '多病种模式',
        body: multiDiseaseBodySchema,
      },
      config: { study: fromBody, ...diseaseWrite, action: '多病种模式' },
    },
    async (request) => {
      await setup.setMultiDisease(ctx, requireUser(request), request.body.studyId, request.body.multiDisease);
      return ok(null, '操作成功');
    },
  );
  app.post(
    '/api/business/study_disease/disease',
    {
      schema: { tags: diseaseTags, summary: '新增病种', body: diseaseCreateBodySchema },
      config: { study: fromBody, ...diseaseWrite, action: '新增' },
    },
    async (request) => ok(await setup.createDisease(ctx, requireUser(request), request.body), '新增成功'),
  );
  app.put(
    '/api/business/study_disease/disease',
    {
      schema: { tags: diseaseTags, summary: '修改病种', body: diseaseUpdateBodySchema },
      config: { study: (r) => diseaseOf((r.body as { id: number }).id), ...diseaseWrite, action: '修改' },
    },
    async (request) => {
      await setup.updateDisease(ctx, requireUser(request), request.body);
      return ok(null, '修改成功');
    },
  );
  app.delete(
    '/api/business/study_disease/disease',
    {
      schema: { tags: diseaseTags, summary: '删除病种', querystring: idQuery },
      config: { study: (r) => diseaseOf((r.query as { id: number }).id), ...diseaseWrite, action: '删除' },
    },
    async (request) => {
      await setup.deleteDisease(ctx, requireUser(request), request.query.id);
      return ok(null, '删除成功');
    },
  );
  app.put(
    '/api/business/study_disease/disease/crf',
    {
      schema: {
        tags: diseaseTags,
        summary: '设置病种使用的表单',
        querystring: diseaseCrfsQuerySchema,
        body: diseaseCrfsBodySchema,
      },
      config: {
        study: (r) => diseaseOf((r.query as { studyDiseaseId: number }).studyDiseaseId),
        ...diseaseWrite,
        action: '设置表单',
      },
    },
    async (request) => {
      await setup.setDiseaseCrfs(ctx, requireUser(request), request.query.studyDiseaseId, request.body.crfVO);
      return ok(null, '保存成功');
    },
  );
}
