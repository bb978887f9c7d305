import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { ok } from '../../http/envelope.js';
import { idSchema, idTextSchema } from '../../http/ids.js';
import { requireStudy } from '../../http/study-guard.js';
import type { App } from '../../http/types.js';
import { fromBody, fromQuery, studyIdQuery } from '../../http/study-params.js';
import * as hospital from './hospital.service.js';

const tags = ['项目介绍'];
const module = '项目介绍';
const optionalText = (max: number, label: string) =>
  z.string().trim().max(max, `${label}不能超过${max}个字符`).nullish();
const hospitalBody = z.object({
  studyId: idSchema,
  name: z.string().trim().min(1, '请输入医院名称').max(60, '医院名称不能超过60个字符'),
  introduction: optionalText(5000, '介绍'),
  address: optionalText(200, '地址'),
  contact: optionalText(30, '联系人'),
  phone: optionalText(30, '联系电话'),
  sort: z.number().int().min(0).max(9999).optional(),
});

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
      schema: { tags, summary: '新增医院', body: hospitalBody },
      config: { study: fromBody, studyPermission: hospital.DEPARTMENT_MANAGE, module, action: '新增医院' },
    },
    async (request) => ok(await hospital.createHospital(ctx, requireStudy(request), request.body), '新增成功'),
  );
  app.put(
    '/api/v1/hospital/:id',
    {
      schema: { tags, summary: '修改医院', params: z.object({ id: idTextSchema }), body: hospitalBody },
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
