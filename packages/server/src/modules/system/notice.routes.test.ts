import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { menus, noticeReads, notices } from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

describe('通知公告: writing, targets, read marks and pushes', () => {
  let t: TestApp;
  let admin: string;
  let studyId: number;
  let member: string;
  let memberId: number;
  let other: string;
  let otherId: number;
  let otherRoleId: number;
  const pushes: { userId: number; event: string; payload: unknown }[] = [];

  const userIdOf = async (token: string) =>
    (await t.call(token, 'GET', '/api/sys/login/getInfo')).body.data.user.userId as number;

  beforeAll(async () => {
    t = await createTestApp();
    ({ admin, studyId } = await openDemoStudy(t));
    member = await addStudyMember(t, admin, studyId, '13900000401', { permissions: [] });
    memberId = await userIdOf(member);
    // A user of no study, with a system role of their own.
    const otherStudy = await t.call(admin, 'POST', '/api/business/study', {
      studyName: '公告外项目',
      studyCode: 'NOTICE-X',
      diseases: [{ diseaseName: '腰椎管狭窄', diseaseCode: 'LSS' }],
    });
    other = await addStudyMember(t, admin, otherStudy.body.data.id ?? otherStudy.body.data.studyId, '13900000402', {
      permissions: [],
    });
    otherId = await userIdOf(other);
    otherRoleId = (await t.call(admin, 'GET', `/api/system/user?userId=${otherId}`)).body.data.roleIds[0];
    const toUser = t.ctx.realtime.toUser.bind(t.ctx.realtime);
    vi.spyOn(t.ctx.realtime, 'toUser').mockImplementation((userId, event, payload) => {
      pushes.push({ userId, event, payload });
      toUser(userId, event, payload);
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  const titles = async (token: string) =>
    ((await t.call(token, 'GET', '/api/system/notice/list')).body.data.list as { title: string }[]).map((n) => n.title);

  it('SHELL-34: a notice for all users reaches every reader’s list, unread, and is pushed to each of them by id', async () => {
    pushes.length = 0;
    const created = await t.call(admin, 'POST', '/api/system/notice', {
      title: '系统维护通知',
      content: '本周六 22:00 至 23:00 系统维护',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.msg).toBe('发布成功');
    const noticeId = created.body.data.noticeId;
    expect(pushes).toContainEqual({
      userId: memberId,
      event: 'sys.notice',
      payload: { noticeId, change: 'published' },
    });
    expect(pushes).toContainEqual({ userId: otherId, event: 'sys.notice', payload: { noticeId, change: 'published' } });
    const list = await t.call(member, 'GET', '/api/system/notice/list?pageNum=1&pageSize=10');
    expect(list.body.data).toMatchObject({
      total: 1,
      list: [{ noticeId, title: '系统维护通知', content: '本周六 22:00 至 23:00 系统维护', read: false }],
    });
    expect((await t.call(member, 'GET', '/api/system/notice/unread')).body.data).toEqual({ unread: 1 });
  });

  it('SHELL-34: a notice for a study reaches its staff only; one for a role reaches that role’s users only', async () => {
    pushes.length = 0;
    const forStudy = await t.call(admin, 'POST', '/api/system/notice', {
      title: '项目启动会',
      targetType: 'study',
      targetStudyId: studyId,
    });
    expect(forStudy.status, JSON.stringify(forStudy.body)).toBe(200);
    expect(pushes.map((p) => p.userId)).toContain(memberId);
    expect(pushes.map((p) => p.userId)).not.toContain(otherId);
    pushes.length = 0;
    const forRole = await t.call(admin, 'POST', '/api/system/notice', {
      title: '角色培训',
      targetType: 'role',
      targetRoleId: otherRoleId,
    });
    expect(forRole.status).toBe(200);
    expect(pushes.map((p) => p.userId)).toEqual([otherId]);
    expect(await titles(member)).toEqual(['项目启动会', '系统维护通知']);
    expect(await titles(other)).toEqual(['角色培训', '系统维护通知']);
    // A target must be named and must exist.
    const missing = await t.call(admin, 'POST', '/api/system/notice', { title: '无目标', targetType: 'role' });
    expect(missing.status).toBe(400);
    const gone = await t.call(admin, 'POST', '/api/system/notice', {
      title: '无项目',
      targetType: 'study',
      targetStudyId: 99999,
    });
    expect(gone.body.msg).toBe('项目不存在');
  });

  it('SHELL-34: read marks are per user; a notice not meant for the caller cannot be marked', async () => {
    const [forRole] = await t.db.select().from(notices).where(eq(notices.title, '角色培训'));
    const marked = await t.call(member, 'PUT', '/api/system/notice/read', { noticeIds: [forRole!.noticeId] });
    expect(marked.body.data).toEqual({ unread: 2 });
    expect(await t.db.select().from(noticeReads).where(eq(noticeReads.userId, memberId))).toEqual([]);
    const all = await t.call(member, 'PUT', '/api/system/notice/read', {});
    expect(all.body.data).toEqual({ unread: 0 });
    const list = await t.call(member, 'GET', '/api/system/notice/list');
    expect((list.body.data.list as { read: boolean }[]).every((n) => n.read)).toBe(true);
    // Another reader's marks are their own.
    expect((await t.call(other, 'GET', '/api/system/notice/unread')).body.data).toEqual({ unread: 2 });
  });

  it('SHELL-34: administrators edit and remove notices; readers are told, and a removed notice leaves their lists', async () => {
    const manage = await t.call(admin, 'GET', '/api/system/notice/manage/list?pageNum=1&pageSize=10');
    expect(manage.body.data.total).toBe(3);
    const study = (manage.body.data.list as { title: string; noticeId: number }[]).find(
      (n) => n.title === '项目启动会',
    )!;
    expect(study).toMatchObject({ targetType: 'study', targetName: expect.any(String), readCount: 1 });
    pushes.length = 0;
    const edited = await t.call(admin, 'PUT', `/api/system/notice/${study.noticeId}`, {
      title: '项目启动会（改期）',
      targetType: 'all',
    });
    expect(edited.status).toBe(200);
    expect(pushes).toContainEqual({
      userId: otherId,
      event: 'sys.notice',
      payload: { noticeId: study.noticeId, change: 'changed' },
    });
    expect(await titles(other)).toContain('项目启动会（改期）');
    const removed = await t.call(admin, 'DELETE', `/api/system/notice/${study.noticeId}`);
    expect(removed.body.msg).toBe('删除成功');
    expect(await titles(other)).not.toContain('项目启动会（改期）');
    expect((await t.call(admin, 'DELETE', `/api/system/notice/${study.noticeId}`)).status).toBe(404);
  });

  it('SHELL-34: only holders of the notice permissions manage notices; anonymous callers are refused', async () => {
    for (const [method, url, body] of [
      ['GET', '/api/system/notice/manage/list', undefined],
      ['POST', '/api/system/notice', { title: '越权' }],
      ['PUT', '/api/system/notice/1', { title: '越权' }],
      ['DELETE', '/api/system/notice/1', undefined],
    ] as const) {
      const res = await t.call(member, method, url, body);
      expect(res.status, `${method} ${url}`).toBe(403);
    }
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/system/notice/list' });
    expect(anonymous.statusCode).toBe(401);
    // The page is in the system menu, with its buttons.
    const [menu] = await t.db.select().from(menus).where(eq(menus.code, 'sys.notice'));
    expect(menu).toMatchObject({ path: '/sys/notice', perms: 'sys:notice:notice', title: '通知公告' });
  });
});
