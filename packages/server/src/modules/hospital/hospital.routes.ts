import { hospitalBodySchema, idParamSchema } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { ok } from '../../http/envelope.js';
import { requireStudy } from '../../http/study-guard.js';
import type { App } from '../../http/types.js';
import { fromBody, fromQuery, studyIdQuery } from '../../http/study-params.js';
import * as hospital from './hospital.service.js';

const tags = ['项目介绍'];
const module = '项目介绍';

/**
 * The study's sites (项目介绍, platform §7: hospital GET, POST, PUT). Reading needs membership; changes need
 * 管理项目介绍. Patients read them without signing in (GET /api/ignore/hospital?studyId).
 */
export function hospitalRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/v1/hospital',
    { schema: { tags, summary: '项目医院', querystring: studyIdQuery }, config: { study: fromQuery } },
    async (request) => ok(await hospital.listHospitals(ctx, requireStudy(request).studyId)),
  );
  app.post(
    '/api/v1/hospital',
    {
      schema: { tags, summary: '新增医院', body: hospitalBodySchema },
      config: { study: fromBody, studyPermission: hospital.DEPARTMENT_MANAGE, module, action: '新增医院' },
    },
    async (request) => ok(await hospital.createHospital(ctx, requireStudy(request), request.body), '新增成功'),
  );
  app.put(
    '/api/v1/hospital/:id',
    {
      schema: { tags, summary: '修改医院', params: idParamSchema, body: hospitalBodySchema },
      config: { study: fromBody, studyPermission: hospital.DEPARTMENT_MANAGE, module, action: '修改医院' },
    },
    async (request) =>
      ok(await hospital.updateHospital(ctx, requireStudy(request), request.params.id, request.body), '修改成功'),
  );
  app.get(
    '/api/ignore/hospital',
    { schema: { tags, summary: '项目医院（患者端，无需登录）', querystring: studyIdQuery } },
    async (request) => ok(await hospital.listHospitals(ctx, request.query.studyId)),
  );
}
