import {
  idParamSchema,
  myNoticeListQuerySchema,
  noticeInput,
  noticeManageListQuerySchema,
  noticeReadBodySchema,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { pageRequest } from '../../http/paging.js';
import type { App } from '../../http/types.js';
import * as notice from './notice.service.js';

const tags = ['通知公告'];
const module = '通知公告';

/**
 * 通知公告. Readers (every signed-in user):
 *   GET /api/system/notice/list?pageNum&pageSize     the caller's notices with `read` (SHELL-34)
 *   GET /api/system/notice/unread                    { unread }
 *   PUT /api/system/notice/read { noticeIds? }       marks them (or all of the caller's) read
 * Administrators (menu sys.notice, /sys/notice):
 *   GET /api/system/notice/manage/list?title&pageNum&pageSize   sys:notice:notice
 *   POST /api/system/notice                           sys:notice:add
 *   PUT /api/system/notice/{id}                       sys:notice:edit
 *   DELETE /api/system/notice/{id}                    sys:notice:remove
 */
export function noticeRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/system/notice/list',
    {
      schema: { tags, summary: '我的通知公告（分页）', querystring: myNoticeListQuerySchema },
      config: { allowWhilePasswordMustChange: true },
    },
    async (request) => ok(await notice.listMyNotices(ctx, requireUser(request), pageRequest(request.query))),
  );

  app.get(
    '/api/system/notice/unread',
    { schema: { tags, summary: '未读公告数' }, config: { allowWhilePasswordMustChange: true } },
    async (request) => ok({ unread: await notice.unreadCount(ctx, requireUser(request)) }),
  );

  app.put(
    '/api/system/notice/read',
    {
      schema: {
        tags,
        summary: '标记公告已读（不传 noticeIds 则全部已读）',
        body: noticeReadBodySchema,
      },
    },
    async (request) => ok(await notice.markRead(ctx, requireUser(request), request.body.noticeIds)),
  );

  app.get(
    '/api/system/notice/manage/list',
    {
      schema: {
        tags,
        summary: '公告管理列表（分页）',
        querystring: noticeManageListQuerySchema,
      },
      config: { permission: 'sys:notice:notice' },
    },
    async (request) => ok(await notice.listAllNotices(ctx, { title: request.query.title }, pageRequest(request.query))),
  );

  app.post(
    '/api/system/notice',
    {
      schema: { tags, summary: '发布公告', body: noticeInput },
      config: { permission: 'sys:notice:add', module, action: '新增' },
    },
    async (request) => ok(await notice.createNotice(ctx, requireUser(request), request.body), '发布成功'),
  );

  app.put(
    '/api/system/notice/:id',
    {
      schema: { tags, summary: '修改公告', params: idParamSchema, body: noticeInput },
      config: { permission: 'sys:notice:edit', module, action: '修改' },
    },
    async (request) => ok(await notice.updateNotice(ctx, request.params.id, request.body), '修改成功'),
  );

  app.delete(
    '/api/system/notice/:id',
    {
      schema: { tags, summary: '删除公告', params: idParamSchema },
      config: { permission: 'sys:notice:remove', module, action: '删除' },
    },
    async (request) => {
      await notice.removeNotice(ctx, request.params.id);
      return ok(null, '删除成功');
    },
  );
}
