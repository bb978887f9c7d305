import {
  allocationListQuerySchema,
  emergencyUnblindBodySchema,
  randomizationExportBodySchema,
  randomizationSaveBodySchema,
  randomizationStudyQuerySchema,
  randomizeBodySchema,
  randomlySelectedQuerySchema,
  simulateBodySchema,
  subjectRandomizationQuerySchema,
  unblindAllBodySchema,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { pageRequest } from '../../http/paging.js';
import { sendFile } from '../../http/send-file.js';
import { requireStudy } from '../../http/study-guard.js';
import type { App } from '../../http/types.js';
import { fromBody, fromQuery } from '../../http/study-params.js';
import { randomize } from './randomization-assign.service.js';
import { factorDepts, getConfig, listSlots, saveConfig, simulate } from './randomization-config.service.js';
import {
  exportList,
  exportSelected,
  getSubjectRandomization,
  listSelected,
  results,
} from './randomization-results.service.js';
import { RANDOMIZATION_PERMISSIONS } from './randomization-shared.js';
import { emergencyUnblind, unblindAll } from './randomization-unblind.service.js';

const tags = ['随机化'];
const module = '随机化';
const P = RANDOMIZATION_PERMISSIONS;

export function randomizationRoutes(app: App, ctx: AppContext) {
  // ---- configuration (随机列表)
  app.post(
    '/api/business/randomization',
    {
      schema: {
        tags,
        summary:
          '保存随机化配置（新版本）：服务器抽取种子并预先生成各分层的随机分配表，或使用上传的 CSV 分配表；已有患者随机后须填写原因',
        // The @ecrf/core RandomizationConfig, checked by the service with the core schema and its cross-field rules.
        body: randomizationSaveBodySchema,
      },
      config: { study: fromBody, module, action: '保存随机化配置', studyPermission: P.config },
    },
    async (request) => ok(await saveConfig(ctx, requireUser(request), request.body), '保存成功'),
  );
  app.get(
    '/api/business/randomization/config',
    {
      schema: { tags, summary: '当前随机化配置及其版本', querystring: randomizationStudyQuerySchema },
      config: { study: fromQuery },
    },
    async (request) => ok(await getConfig(ctx, requireStudy(request))),
  );
  app.get(
    '/api/business/randomization/list/config',
    {
      schema: {
        tags,
        summary: '随机分配表（分页；仅限可查看随机分组的角色）',
        querystring: allocationListQuerySchema,
      },
      config: { study: fromQuery, studyPermission: P.unblinded },
    },
    async (request) =>
      ok(
        await listSlots(
          ctx,
          requireStudy(request),
          { stratum: request.query.stratum, version: request.query.version },
          pageRequest(request.query),
        ),
      ),
  );
  app.get(
    '/api/business/randomization/factor/depts',
    {
      schema: {
        tags,
        summary: '可作为分层因素的中心（项目人员与患者所属机构）',
        querystring: randomizationStudyQuerySchema,
      },
      config: { study: fromQuery },
    },
    async (request) => ok(await factorDepts(ctx, request.query.studyId)),
  );

  // ---- randomizing
  app.post(
    '/api/business/randomization/subject',
    {
      schema: {
        tags,
        summary: '患者随机入组（不可撤销）：返回随机号、时间和分组（盲法下无权查看分组者只得到药物编号）',
        body: randomizeBodySchema,
      },
      config: { study: fromBody, module, action: '随机入组', studyPermission: P.subject },
    },
    async (request) => ok(await randomize(ctx, requireUser(request), requireStudy(request), request.body), '随机成功'),
  );
  app.get(
    '/api/business/randomization/subject',
    {
      schema: {
        tags,
        summary: '患者的随机结果（未随机时为 null）',
        querystring: subjectRandomizationQuerySchema,
      },
      config: { study: fromQuery },
    },
    async (request) =>
      ok(await getSubjectRandomization(ctx, requireUser(request), requireStudy(request), request.query.subjectId)),
  );
  app.get(
    '/api/business/randomization/randomly_selected',
    {
      schema: {
        tags,
        summary: '随机结果：已随机的患者（分页）',
        querystring: randomlySelectedQuerySchema,
      },
      config: { study: fromQuery },
    },
    async (request) =>
      ok(
        await listSelected(
          ctx,
          requireUser(request),
          requireStudy(request),
          { arm: request.query.arm, keyword: request.query.keyword },
          pageRequest(request.query),
        ),
      ),
  );
  app.get(
    '/api/business/randomization/result',
    {
      schema: { tags, summary: '随机统计：各组、各分层、各因素水平的例数', querystring: randomizationStudyQuerySchema },
      config: { study: fromQuery },
    },
    async (request) => ok(await results(ctx, requireStudy(request))),
  );

  // ---- unblinding
  app.put(
    '/api/business/randomization/unblind',
    {
      schema: {
        tags,
        summary: '紧急揭盲一名患者：须再次输入密码并填写原因；分组只告知操作者，患者永久标记为已紧急揭盲',
        body: emergencyUnblindBodySchema,
      },
      config: { study: fromBody, module, action: '紧急揭盲', studyPermission: P.emergency },
    },
    async (request) => ok(await emergencyUnblind(ctx, requireUser(request), request.body), '揭盲成功'),
  );
  app.put(
    '/api/business/randomization/unblind/all',
    {
      schema: {
        tags,
        summary: '全部揭盲（研究结束）：须再次输入密码并输入项目名称确认；此后所有项目成员可见分组',
        body: unblindAllBodySchema,
      },
      config: { study: fromBody, module, action: '全部揭盲', studyPermission: P.unblindAll },
    },
    async (request) => ok(await unblindAll(ctx, requireUser(request), request.body), '揭盲成功'),
  );

  // ---- exports (file downloads, audited)
  app.post(
    '/api/business/randomization/export',
    {
      schema: {
        tags,
        summary: '导出随机分配表（Excel；仅限可查看随机分组的角色）',
        body: randomizationExportBodySchema,
      },
      config: { study: fromBody, module, action: '导出随机分配表', studyPermission: P.unblinded },
    },
    async (request, reply) => sendFile(reply, await exportList(ctx, requireUser(request), requireStudy(request))),
  );
  app.post(
    '/api/business/randomization/export/randomly_selected',
    {
      schema: { tags, summary: '导出随机结果（Excel；分组按当前用户可见）', body: randomizationExportBodySchema },
      config: { study: fromBody, module, action: '导出随机结果' },
    },
    async (request, reply) => sendFile(reply, await exportSelected(ctx, requireUser(request), requireStudy(request))),
  );

  // ---- simulation (our addition: before go-live)
  app.post(
    '/api/business/randomization/simulate',
    {
      schema: {
        tags,
        summary: '随机化模拟：以独立种子在模拟患者上多次运行所配置（或给定）的方法，返回各组、分层、因素水平的不均衡',
        body: simulateBodySchema,
      },
      config: { study: fromBody, module, action: '随机化模拟', studyPermission: P.config },
    },
    async (request) => ok(await simulate(ctx, request.body)),
  );
}
