import {
  idParamSchema,
  personnelAddBodySchema,
  personnelCandidatesQuerySchema,
  personnelListQuerySchema,
  personnelUpdateBodySchema,
  studyRoleCreateBodySchema,
  studyRoleUpdateBodySchema,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { pageRequest } from '../../http/paging.js';
import type { App } from '../../http/types.js';
import { studyOf } from '../../shared/study-of.js';
import * as staff from './staff.service.js';
import { fromBody, fromQuery, studyIdQuery } from '../../http/study-params.js';

const roleTags = ['项目角色'];
const personnelTags = ['项目人员'];
const idQuery = idParamSchema;

export function staffRoutes(app: App, ctx: AppContext) {
  const roleOfQuery = (request: { query: unknown }) => studyOf(ctx, 'studyRoles', (request.query as { id: number }).id);
  const roleOfBody = (request: { body: unknown }) => studyOf(ctx, 'studyRoles', (request.body as { id: number }).id);
  const memberOfQuery = (request: { query: unknown }) =>
    studyOf(ctx, 'studyPersonnel', (request.query as { id: number }).id);
  const memberOfBody = (request: { body: unknown }) =>
    studyOf(ctx, 'studyPersonnel', (request.body as { id: number }).id);

  app.get(
    '/api/system/studyRoles',
    { schema: { tags: roleTags, summary: '项目角色列表', querystring: studyIdQuery }, config: { study: fromQuery } },
    async (request) => ok(await staff.listStudyRoles(ctx, request.query.studyId)),
  );
  app.get(
    '/api/system/studyRole/tree',
    { schema: { tags: roleTags, summary: '项目角色权限树', querystring: studyIdQuery }, config: { study: fromQuery } },
    async (request) => ok(await staff.permissionTree(ctx, request.query.studyId)),
  );
  app.get(
    '/api/system/studyRole',
    { schema: { tags: roleTags, summary: '项目角色详情', querystring: idQuery }, config: { study: roleOfQuery } },
    async (request) => ok(await staff.getStudyRole(ctx, request.query.id)),
  );
  app.post(
    '/api/system/studyRole',
    {
      schema: { tags: roleTags, summary: '新增项目角色', body: studyRoleCreateBodySchema },
      config: { study: fromBody, permission: 'study:role', module: '项目角色', action: '新增' },
    },
    async (request) =>
      ok(await staff.createStudyRole(ctx, requireUser(request), request.body.studyId, request.body), '新增成功'),
  );
  app.put(
    '/api/system/studyRole',
    {
      schema: { tags: roleTags, summary: '修改项目角色', body: studyRoleUpdateBodySchema },
      config: { study: roleOfBody, permission: 'study:role', module: '项目角色', action: '修改' },
    },
    async (request) =>
      ok(await staff.updateStudyRole(ctx, requireUser(request), request.body.id, request.body), '修改成功'),
  );
  app.delete(
    '/api/system/studyRole',
    {
      schema: { tags: roleTags, summary: '删除项目角色', querystring: idQuery },
      config: { study: roleOfQuery, permission: 'study:role', module: '项目角色', action: '删除' },
    },
    async (request) => {
      await staff.deleteStudyRole(ctx, requireUser(request), request.query.id);
      return ok(null, '删除成功');
    },
  );

  app.get(
    '/api/business/study_personnel/list',
    {
      schema: {
        tags: personnelTags,
        summary: '项目人员',
        querystring: personnelListQuerySchema,
      },
      config: { study: fromQuery },
    },
    async (request) =>
      ok(await staff.listPersonnel(ctx, request.query.studyId, request.query, pageRequest(request.query))),
  );
  app.get(
    '/api/business/study_personnel/uncommitted',
    {
      schema: {
        tags: personnelTags,
        summary: '尚未加入项目的用户',
        querystring: personnelCandidatesQuerySchema,
      },
      config: { study: fromQuery, permission: 'study:user' },
    },
    async (request) => ok(await staff.uncommittedUsers(ctx, request.query.studyId, request.query)),
  );
  app.post(
    '/api/business/study_personnel',
    {
      schema: {
        tags: personnelTags,
        summary: '添加项目人员',
        body: personnelAddBodySchema,
      },
      config: { study: fromBody, permission: 'study:user', module: '项目人员', action: '新增' },
    },
    async (request) => {
      await staff.addPersonnel(ctx, requireUser(request), request.body);
      return ok(null, '添加成功');
    },
  );
  app.put(
    '/api/business/study_personnel',
    {
      schema: {
        tags: personnelTags,
        summary: '修改项目人员角色或中心',
        body: personnelUpdateBodySchema,
      },
      config: { study: memberOfBody, permission: 'study:user', module: '项目人员', action: '修改' },
    },
    async (request) => {
      await staff.updatePersonnel(ctx, requireUser(request), request.body);
      return ok(null, '修改成功');
    },
  );
  app.delete(
    '/api/business/study_personnel',
    {
      schema: { tags: personnelTags, summary: '移除项目人员', querystring: idQuery },
      config: { study: memberOfQuery, permission: 'study:user', module: '项目人员', action: '移除' },
    },
    async (request) => {
      await staff.removePersonnel(ctx, requireUser(request), request.query.id);
      return ok(null, '移除成功');
    },
  );
}
