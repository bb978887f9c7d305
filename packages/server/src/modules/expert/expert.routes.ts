import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { ok } from '../../http/envelope.js';
import { idSchema, idTextSchema } from '../../http/ids.js';
import { pageRequest, pagingQuery } from '../../http/paging.js';
import { requireStudy } from '../../http/study-guard.js';
import type { App } from '../../http/types.js';
import { fromBody, fromQuery, studyIdQuery } from '../../http/study-params.js';
import * as expert from './expert.service.js';

const tags = ['医生管理'];
const module = '医生管理';
const idParams = z.object({ id: idTextSchema });
const optionalText = (max: number, label: string) =>
  z.string().trim().max(max, `${label}不能超过${max}个字符`).nullish();
const expertBody = z.object({
  studyId: idSchema,
  name: z.string().trim().min(1, '请输入姓名').max(30, '姓名不能超过30个字符'),
  photoKey: z
    .string()
    .regex(/^[0-9a-f]{32}$/, '照片不存在')
    .nullish(),
  title: optionalText(30, '职称'),
  hospital: optionalText(60, '医院'),
  department: optionalText(60, '科室'),
  specialty: optionalText(200, '擅长'),
  introduction: optionalText(5000, '简介'),
  sort: z.number().int().min(0).max(9999).optional(),
});
const listQuery = studyIdQuery.extend({ keyword: z.string().max(50).optional(), ...pagingQuery });

/**
 * Doctors of a study (医生管理, platform §7: expert create, read, update, delete). Reading needs membership;
 * changes need 管理医生. Patients read the list without signing in (GET /api/ignore/experts?studyId).
 */
export function expertRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/v1/experts',
    { schema: { tags, summary: '医生列表（分页）', querystring: listQuery }, config: { study: fromQuery } },
    async (request) =>
      ok(
        await expert.listExperts(ctx, requireStudy(request).studyId, request.query.keyword, pageRequest(request.query)),
      ),
  );
  app.get(
    '/api/v1/expert/:id',
    {
      schema: { tags, summary: '医生详情', params: idParams, querystring: studyIdQuery },
      config: { study: fromQuery },
    },
    async (request) => ok(await expert.getExpert(ctx, requireStudy(request), request.params.id)),
  );
  app.post(
    '/api/v1/expert',
    {
      schema: { tags, summary: '新增医生', body: expertBody },
      config: { study: fromBody, studyPermission: expert.EXPERT_MANAGE, module, action: '新增医生' },
    },
    async (request) => ok(await expert.createExpert(ctx, requireStudy(request), request.body), '新增成功'),
  );
  app.put(
    '/api/v1/expert/:id',
    {
      schema: { tags, summary: '修改医生', params: idParams, body: expertBody },
      config: { study: fromBody, studyPermission: expert.EXPERT_MANAGE, module, action: '修改医生' },
    },
    async (request) =>
      ok(await expert.updateExpert(ctx, requireStudy(request), request.params.id, request.body), '修改成功'),
  );
  app.delete(
    '/api/v1/expert/:id',
    {
      schema: { tags, summary: '删除医生', params: idParams, querystring: studyIdQuery },
      config: { study: fromQuery, studyPermission: expert.EXPERT_MANAGE, module, action: '删除医生' },
    },
    async (request) => {
      await expert.deleteExpert(ctx, requireStudy(request), request.params.id);
      return ok(null, '删除成功');
    },
  );
  app.get(
    '/api/ignore/experts',
    {
      schema: {
        tags,
        summary: '医生列表（患者端，无需登录）',
        querystring: z.object({ studyId: idTextSchema, keyword: z.string().max(50).optional(), ...pagingQuery }),
      },
    },
    async (request) =>
      ok(await expert.listExperts(ctx, request.query.studyId, request.query.keyword, pageRequest(request.query))),
  );
}
