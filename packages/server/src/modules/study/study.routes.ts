import type { FastifyRequest } from 'fastify';
import {
  followTriggerBodySchema,
  followTriggersBodySchema,
  hasPermission,
  idParamSchema as idParam,
  missingCodesBodySchema,
  serialNumberEnableBodySchema,
  studyCreateBodySchema,
  GOLIVE_MSG,
  studyDoubtBodySchema,
  studyGoLiveBodySchema,
  studyIdBodySchema,
  studyListQuerySchema,
  studyManageListQuerySchema,
  studyUpdateBodySchema,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { pageRequest } from '../../http/paging.js';
import { STUDY_MANAGE } from '../../shared/study-access.js';
import { fromBody, fromBodyId, fromParam, fromQuery, studyIdQuery } from '../../http/study-params.js';
import type { App } from '../../http/types.js';
import * as studyService from './study.service.js';
import { getMissingCodes, setMissingCodes } from './missing-codes.service.js';
import { goLive, goLivePreview } from './study-golive.service.js';

const tags = ['项目'];
const module = '项目管理';

function origin(request: FastifyRequest) {
  return `${request.protocol}://${request.host}`;
}

export function studyRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/business/study/list',
    {
      schema: {
        tags,
        summary: '我参与的项目',
        querystring: studyListQuerySchema,
      },
    },
    async (request) => {
      const user = requireUser(request);
      return ok(
        await studyService.listMyStudies(
          ctx,
          user,
          hasPermission(user.permissions, STUDY_MANAGE),
          request.query,
          pageRequest(request.query),
        ),
      );
    },
  );

  app.get(
    '/api/business/study/manage/list',
    {
      schema: {
        tags,
        summary: '全部项目（项目维护）',
        querystring: studyManageListQuerySchema,
      },
      config: { permission: STUDY_MANAGE },
    },
    async (request) =>
      ok(await studyService.listAllStudies(ctx, requireUser(request), request.query, pageRequest(request.query))),
  );

  app.get(
    '/api/business/study/u_qr_code/:id',
    {
      schema: { tags, summary: '项目二维码', params: idParam },
      config: { study: fromParam, studyDeniedMsg: '您未参与该项目' },
    },
    async (request) => ok(await studyService.studyQrCode(ctx, request.params.id, origin(request)), '获取成功'),
  );

  app.get(
    '/api/business/study/doubt/:id',
    { schema: { tags, summary: '项目是否开启质疑', params: idParam }, config: { study: fromParam } },
    async (request) => ok(await studyService.getDoubt(ctx, request.params.id)),
  );

  app.post(
    '/api/business/study/doubt',
    {
      schema: { tags, summary: '开启或关闭质疑', body: studyDoubtBodySchema },
      config: { study: fromBody, permission: 'study:config', module, action: '质疑设置' },
    },
    async (request) => {
      await studyService.setDoubt(ctx, requireUser(request), request.body.studyId, request.body.doubt);
      return ok(null, '操作成功');
    },
  );

  app.get(
    '/api/business/study/sign_config',
    { schema: { tags, summary: '签名配置', querystring: studyIdQuery }, config: { study: fromQuery } },
    async (request) => ok(await studyService.getSignConfig(ctx, request.query.studyId)),
  );

  // 上线 (docs/lifecycle.md): what it would purge, and the act itself (the study's code typed again, and why).
  app.get(
    '/api/business/study/golive',
    {
      schema: { tags, summary: '上线预览：将清除的测试数据', querystring: studyIdQuery },
      config: { study: fromQuery, studyPermission: 'btn:business.study.golive' },
    },
    async (request) => ok(await goLivePreview(ctx, request.query.studyId)),
  );

  app.post(
    '/api/business/study/golive',
    {
      schema: { tags, summary: '上线：清除测试数据并转为正式项目', body: studyGoLiveBodySchema },
      config: { study: fromBody, studyPermission: 'btn:business.study.golive', module, action: '上线' },
    },
    async (request) => ok(await goLive(ctx, requireUser(request), request.body.studyId, request.body), GOLIVE_MSG.done),
  );

  app.get(
    '/api/business/study/:id',
    { schema: { tags, summary: '项目详情', params: idParam }, config: { study: fromParam } },
    async (request) => ok(await studyService.getStudy(ctx, requireUser(request), request.params.id)),
  );

  app.post(
    '/api/business/study',
    {
      schema: {
        tags,
        summary: '新建项目',
        body: studyCreateBodySchema,
      },
      config: { permission: 'study:add', module, action: '新增' },
    },
    async (request) => ok(await studyService.createStudy(ctx, requireUser(request), request.body), '新增成功'),
  );

  app.put(
    '/api/business/study',
    {
      schema: { tags, summary: '修改项目（含配置）', body: studyUpdateBodySchema },
      config: { study: fromBodyId, permission: ['study:config', 'study:edit'], module, action: '修改' },
    },
    async (request) =>
      ok(await studyService.updateStudy(ctx, requireUser(request), request.body.id, request.body), '修改成功'),
  );

  app.delete(
    '/api/business/study/:id',
    {
      schema: { tags, summary: '删除项目', params: idParam },
      config: { study: fromParam, permission: 'study:remove', module, action: '删除' },
    },
    async (request) => {
      await studyService.deleteStudy(ctx, requireUser(request), request.params.id);
      return ok(null, '删除成功');
    },
  );

  for (const version of ['v1', 'v2'] as const) {
    app.get(
      `/api/${version}/business/study/serial_number`,
      {
        schema: { tags, summary: `自动编号设置（${version}）`, querystring: studyIdQuery },
        config: { study: fromQuery },
      },
      async (request) => ok(await studyService.getSerialNumber(ctx, request.query.studyId)),
    );
  }
  for (const [action, enabled] of [
    ['enable', true],
    ['close', false],
  ] as const) {
    app.put(
      `/api/v1/business/study/serial_number/${action}`,
      {
        schema: { tags, summary: enabled ? '开启自动编号' : '关闭自动编号', querystring: studyIdQuery },
        config: {
          study: fromQuery,
          permission: 'study:config',
          module,
          action: enabled ? '开启自动编号' : '关闭自动编号',
        },
      },
      async (request) =>
        ok(
          await studyService.setSerialNumber(ctx, requireUser(request), request.query.studyId, { enabled }),
          '操作成功',
        ),
    );
  }
  app.put(
    '/api/v2/business/study/serial_number/enable',
    {
      schema: {
        tags,
        summary: '按规则开启自动编号',
        body: serialNumberEnableBodySchema,
      },
      config: { study: fromBody, permission: 'study:config', module, action: '开启自动编号' },
    },
    async (request) =>
      ok(
        await studyService.setSerialNumber(ctx, requireUser(request), request.body.studyId, {
          enabled: true,
          ...request.body,
        }),
        '操作成功',
      ),
  );
  app.put(
    '/api/v2/business/study/serial_number/close',
    {
      schema: { tags, summary: '关闭自动编号', body: studyIdBodySchema },
      config: { study: fromBody, permission: 'study:config', module, action: '关闭自动编号' },
    },
    async (request) =>
      ok(
        await studyService.setSerialNumber(ctx, requireUser(request), request.body.studyId, { enabled: false }),
        '操作成功',
      ),
  );

  app.get(
    '/api/v1/business/study/follow_trigger',
    { schema: { tags, summary: '随访触发设置', querystring: studyIdQuery }, config: { study: fromQuery } },
    async (request) => {
      const [first] = await studyService.getFollowTriggers(ctx, request.query.studyId);
      return ok(first ?? { enabled: false, crfId: null, itemName: null, offsetDays: 0 });
    },
  );
  app.put(
    '/api/v1/business/study/follow_trigger',
    {
      schema: { tags, summary: '保存随访触发设置', body: followTriggerBodySchema },
      config: { study: fromBody, permission: 'study:config', module, action: '随访触发设置' },
    },
    async (request) => {
      const { studyId, ...trigger } = request.body;
      await studyService.setFollowTriggers(ctx, requireUser(request), studyId, [trigger]);
      return ok(null, '保存成功');
    },
  );
  app.get(
    '/api/v2/business/study/follow_trigger',
    { schema: { tags, summary: '随访触发设置（多个）', querystring: studyIdQuery }, config: { study: fromQuery } },
    async (request) => ok({ triggers: await studyService.getFollowTriggers(ctx, request.query.studyId) }),
  );
  app.put(
    '/api/v2/business/study/follow_trigger',
    {
      schema: {
        tags,
        summary: '保存随访触发设置（多个）',
        body: followTriggersBodySchema,
      },
      config: { study: fromBody, permission: 'study:config', module, action: '随访触发设置' },
    },
    async (request) => {
      await studyService.setFollowTriggers(ctx, requireUser(request), request.body.studyId, request.body.triggers);
      return ok(null, '保存成功');
    },
  );

  // 缺失原因 (issue 37): the codes an item may be marked with; every member reads them, study:config sets them.
  app.get(
    '/api/business/study/missing_codes',
    { schema: { tags, summary: '缺失原因代码', querystring: studyIdQuery }, config: { study: fromQuery } },
    async (request) => ok({ codes: await getMissingCodes(ctx, request.query.studyId) }),
  );
  app.put(
    '/api/business/study/missing_codes',
    {
      schema: { tags, summary: '保存缺失原因代码', body: missingCodesBodySchema },
      config: { study: fromBody, permission: 'study:config', module, action: '缺失原因设置' },
    },
    async (request) =>
      ok(
        { codes: await setMissingCodes(ctx, requireUser(request), request.body.studyId, request.body.codes) },
        '保存成功',
      ),
  );
}
