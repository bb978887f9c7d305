import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CalendarReminderPush, CountsPush } from '@ecrf/core';
import { calendarEvents, operLogs, users } from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { createScheduler } from '../jobs/scheduler.js';
import { calendarRemindersTask } from './calendar.service.js';

const MIN = 60_000;

describe('calendar events (/api/business/events)', () => {
  let t: TestApp;
  let admin: string;
  let studyId: number;
  let nurse: string;
  let doctor: string;
  let outsider: string;
  let nurseId: number;
  const pushes: { userId: number; event: string; payload: unknown }[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    ({ admin, studyId } = await openDemoStudy(t));
    nurse = await addStudyMember(t, admin, studyId, '13900000101', { permissions: [] });
    doctor = await addStudyMember(t, admin, studyId, '13900000102', { permissions: [] });
    const created = await t.call(admin, 'POST', '/api/system/user', {
      userName: '13900000103',
      password: 'Passw0rd',
      name: '外人',
      deptId: 1,
      roleIds: [1],
    });
    const plainRole = await t.call(admin, 'POST', '/api/system/role', {
      roleName: '外人',
      roleKey: 'outsider',
      menuIds: [],
    });
    await t.call(admin, 'PUT', '/api/system/user', {
      userId: created.body.data.userId,
      userName: '13900000103',
      name: '外人',
      deptId: 1,
      roleIds: [plainRole.body.data.roleId],
    });
    await t.db.update(users).set({ setPasswordMust: false }).where(eq(users.userId, created.body.data.userId));
    outsider = (await t.login('13900000103', 'Passw0rd')).token;
    nurseId = (await t.call(nurse, 'GET', '/api/sys/login/getInfo')).body.data.user.userId;
    const toUser = t.ctx.realtime.toUser.bind(t.ctx.realtime);
    vi.spyOn(t.ctx.realtime, 'toUser').mockImplementation((userId, event, payload) => {
      pushes.push({ userId, event, payload });
      toUser(userId, event, payload);
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  // The test clock stands at 2026-11-22T08:00Z: 16:00 on 2026-11-22 in the study's zone (Asia/Shanghai).
  const timed = (title: string, start: string, end: string, extra: object = {}) => ({
    studyId,
    title,
    allDay: false,
    startTime: start,
    endTime: end,
    ...extra,
  });

  it('FOLLOW-03: creates, reads, changes and deletes the caller’s own event, with a pushed today count', async () => {
    const created = await t.call(
      nurse,
      'POST',
      '/api/business/events',
      timed('随访电话', '2026-11-22T18:00:00+08:00', '2026-11-22T18:30:00+08:00', {
        note: '带上量表',
        remindBefore: 15,
      }),
    );
    expect(created.status).toBe(200);
    expect(created.body.msg).toBe('新增成功');
    const event = created.body.data;
    expect(event).toMatchObject({
      title: '随访电话',
      allDay: false,
      startTime: '2026-11-22T10:00:00.000Z',
      endTime: '2026-11-22T10:30:00.000Z',
      note: '带上量表',
      remindBefore: 15,
    });
    const [row] = await t.db.select().from(calendarEvents).where(eq(calendarEvents.id, event.id));
    expect(row).toMatchObject({ studyId, ownerId: nurseId, remindedAt: null });
    expect(row!.remindAt!.toISOString()).toBe('2026-11-22T09:45:00.000Z');
    expect(pushes).toContainEqual({ userId: nurseId, event: 'counts', payload: { studyId, events: 1 } });

    expect((await t.call(nurse, 'GET', `/api/business/events/count?studyId=${studyId}`)).body.data).toEqual({
      today: 1,
    });
    const one = await t.call(nurse, 'GET', `/api/business/events/${event.id}?studyId=${studyId}`);
    expect(one.body.data.title).toBe('随访电话');

    const changed = await t.call(
      nurse,
      'PUT',
      `/api/business/events/${event.id}`,
      timed('随访电话（改期）', '2026-11-23T09:00:00+08:00', '2026-11-23T09:30:00+08:00', { remindBefore: null }),
    );
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ title: '随访电话（改期）', remindBefore: null, note: null });
    const [after] = await t.db.select().from(calendarEvents).where(eq(calendarEvents.id, event.id));
    expect(after!.remindAt).toBeNull();
    expect((await t.call(nurse, 'GET', `/api/business/events/count?studyId=${studyId}`)).body.data).toEqual({
      today: 0,
    });

    const gone = await t.call(nurse, 'DELETE', `/api/business/events/${event.id}?studyId=${studyId}`);
    expect(gone.status).toBe(200);
    expect(await t.db.select().from(calendarEvents).where(eq(calendarEvents.id, event.id))).toEqual([]);
    expect((await t.call(nurse, 'GET', `/api/business/events/${event.id}?studyId=${studyId}`)).status).toBe(404);
    await t.app.flushOperLogs();
    const logged = await t.db
      .select({ action: operLogs.businessType })
      .from(operLogs)
      .where(eq(operLogs.title, '日历'));
    expect(logged.map((l) => l.action)).toEqual(expect.arrayContaining(['新增日程', '修改日程', '删除日程']));
  });

  it('all-day events are days in the study’s zone; validation names the fields', async () => {
    const allDay = await t.call(nurse, 'POST', '/api/business/events', {
      studyId,
      title: '监查访视',
      allDay: true,
      startDate: '2026-11-24',
      endDate: '2026-11-25',
    });
    expect(allDay.body.data).toMatchObject({
      startDate: '2026-11-24',
      endDate: '2026-11-25',
      startTime: '2026-11-23T16:00:00.000Z',
      endTime: '2026-11-25T16:00:00.000Z',
    });
    const backwards = await t.call(
      nurse,
      'POST',
      '/api/business/events',
      timed('倒序', '2026-11-22T18:00:00+08:00', '2026-11-22T17:00:00+08:00'),
    );
    expect(backwards.status).toBe(400);
    expect(backwards.body.msg).toBe('结束时间不能早于开始时间');
    const noTitle = await t.call(
      nurse,
      'POST',
      '/api/business/events',
      timed(' ', '2026-11-22T18:00:00+08:00', '2026-11-22T19:00:00+08:00'),
    );
    expect(noTitle.status).toBe(400);
    const foreignPatient = await t.call(
      nurse,
      'POST',
      '/api/business/events',
      timed('患者', '2026-11-22T18:00:00+08:00', '2026-11-22T19:00:00+08:00', { subjectId: 999999 }),
    );
    expect(foreignPatient.status).toBe(400);
    expect(foreignPatient.body.msg).toBe('患者不存在');
  });

  it('HTTP-08: the list is paged (pageNum, pageSize) and filtered by a range of days', async () => {
    for (let day = 1; day <= 12; day += 1) {
      const d = String(day).padStart(2, '0');
      await t.call(
        nurse,
        'POST',
        '/api/business/events',
        timed(`十二月${d}`, `2026-12-${d}T10:00:00+08:00`, `2026-12-${d}T11:00:00+08:00`),
      );
    }
    const first = await t.call(
      nurse,
      'GET',
      `/api/business/events?studyId=${studyId}&startDate=2026-12-01&endDate=2026-12-31`,
    );
    expect(first.body.data.total).toBe(12);
    expect(first.body.data.list).toHaveLength(10);
    expect(first.body.data.list[0].title).toBe('十二月01');
    const second = await t.call(
      nurse,
      'GET',
      `/api/business/events?studyId=${studyId}&startDate=2026-12-01&endDate=2026-12-31&pageNum=2&pageSize=10`,
    );
    expect(second.body.data.list.map((e: { title: string }) => e.title)).toEqual(['十二月11', '十二月12']);
    const oneDay = await t.call(
      nurse,
      'GET',
      `/api/business/events?studyId=${studyId}&startDate=2026-12-05&endDate=2026-12-05`,
    );
    expect(oneDay.body.data.list.map((e: { title: string }) => e.title)).toEqual(['十二月05']);
    // The all-day event of 24–25 November touches the 25th only by its days, not by the following midnight.
    const the26th = await t.call(
      nurse,
      'GET',
      `/api/business/events?studyId=${studyId}&startDate=2026-11-26&endDate=2026-11-26`,
    );
    expect(the26th.body.data.total).toBe(0);
    const the25th = await t.call(
      nurse,
      'GET',
      `/api/business/events?studyId=${studyId}&startDate=2026-11-25&endDate=2026-11-25`,
    );
    expect(the25th.body.data.list.map((e: { title: string }) => e.title)).toEqual(['监查访视']);
    const tooLong = await t.call(
      nurse,
      'GET',
      `/api/business/events?studyId=${studyId}&startDate=2026-01-01&endDate=2026-12-31`,
    );
    expect(tooLong.status).toBe(400);
  });

  it('a user never sees, changes or deletes another user’s events', async () => {
    const mine = (await t.call(nurse, 'GET', `/api/business/events?studyId=${studyId}&pageSize=100`)).body.data;
    expect(mine.total).toBeGreaterThan(0);
    const theirs = await t.call(doctor, 'GET', `/api/business/events?studyId=${studyId}&pageSize=100`);
    expect(theirs.body.data).toEqual({ list: [], total: 0 });
    const id = mine.list[0].id;
    expect((await t.call(doctor, 'GET', `/api/business/events/${id}?studyId=${studyId}`)).status).toBe(404);
    const put = await t.call(
      doctor,
      'PUT',
      `/api/business/events/${id}`,
      timed('改别人的', '2026-12-01T10:00:00+08:00', '2026-12-01T11:00:00+08:00'),
    );
    expect(put.status).toBe(404);
    expect((await t.call(doctor, 'DELETE', `/api/business/events/${id}?studyId=${studyId}`)).status).toBe(404);
    const [row] = await t.db.select().from(calendarEvents).where(eq(calendarEvents.id, id));
    expect(row!.title).toBe(mine.list[0].title);
    expect((await t.call(doctor, 'GET', `/api/business/events/count?studyId=${studyId}`)).body.data.today).toBe(0);
  });

  it('a user who is not staff of the study is refused (403) on every call', async () => {
    const calls: [string, string, unknown?][] = [
      ['GET', `/api/business/events?studyId=${studyId}`],
      ['GET', `/api/business/events/count?studyId=${studyId}`],
      ['GET', `/api/business/events/1?studyId=${studyId}`],
      ['POST', '/api/business/events', timed('外人', '2026-12-01T10:00:00+08:00', '2026-12-01T11:00:00+08:00')],
      ['PUT', '/api/business/events/1', timed('外人', '2026-12-01T10:00:00+08:00', '2026-12-01T11:00:00+08:00')],
      ['DELETE', `/api/business/events/1?studyId=${studyId}`],
    ];
    for (const [method, url, body] of calls) {
      expect((await t.call(outsider, method, url, body)).status, `${method} ${url}`).toBe(403);
    }
  });

  it('a reminder is sent to its owner once, at its time, by one of two app servers ticking together', async () => {
    const start = new Date(t.clock().getTime() + 60 * MIN);
    const created = await t.call(nurse, 'POST', '/api/business/events', {
      studyId,
      title: '提醒我',
      allDay: false,
      startTime: start.toISOString(),
      endTime: new Date(start.getTime() + 30 * MIN).toISOString(),
      remindBefore: 30,
    });
    const id = created.body.data.id as number;
    const log = () => undefined;
    const servers = [1, 2].map(() =>
      createScheduler({ db: t.db, clock: t.clock, log }, [calendarRemindersTask(t.ctx)]),
    );
    const reminders = () =>
      pushes.filter((p) => p.event === 'notice' && (p.payload as CalendarReminderPush).eventId === id);

    t.clock.advance(29 * MIN); // one minute early
    await Promise.all(servers.map((s) => s.tick()));
    expect(reminders()).toHaveLength(0);

    t.clock.advance(MIN); // due
    await Promise.all(servers.map((s) => s.tick()));
    t.clock.advance(MIN);
    await Promise.all(servers.map((s) => s.tick()));
    expect(reminders()).toEqual([
      {
        userId: nurseId,
        event: 'notice',
        payload: { kind: 'calendar.reminder', eventId: id, studyId, startTime: start.toISOString(), allDay: false },
      },
    ]);
    // The push names the event, never its title (the owner's text may name a patient).
    expect(JSON.stringify(reminders()[0]!.payload)).not.toContain('提醒我');
    const [row] = await t.db.select().from(calendarEvents).where(eq(calendarEvents.id, id));
    expect(row!.remindedAt).not.toBeNull();

    // Moved later, the reminder is due again at its new time, once.
    const later = new Date(t.clock().getTime() + 120 * MIN);
    // The clock has moved past the access token's 30 minutes: sign in again.
    nurse = (await t.login('13900000101', 'Passw0rd')).token;
    const moved = await t.call(nurse, 'PUT', `/api/business/events/${id}`, {
      studyId,
      title: '提醒我',
      allDay: false,
      startTime: later.toISOString(),
      endTime: new Date(later.getTime() + 30 * MIN).toISOString(),
      remindBefore: 30,
    });
    expect(moved.body).toMatchObject({ code: 200 });
    t.clock.advance(90 * MIN);
    await Promise.all(servers.map((s) => s.tick()));
    await Promise.all(servers.map((s) => s.tick()));
    expect(reminders()).toHaveLength(2);
  });

  it('a reminder found long after its event ended is marked handled and not sent', async () => {
    nurse = (await t.login('13900000101', 'Passw0rd')).token;
    const start = new Date(t.clock().getTime() + 10 * MIN);
    const created = await t.call(nurse, 'POST', '/api/business/events', {
      studyId,
      title: '过期',
      allDay: false,
      startTime: start.toISOString(),
      endTime: new Date(start.getTime() + 10 * MIN).toISOString(),
      remindBefore: 5,
    });
    expect(created.body).toMatchObject({ code: 200 });
    const id = created.body.data.id as number;
    t.clock.advance(24 * 60 * MIN);
    const server = createScheduler({ db: t.db, clock: t.clock, log: () => undefined }, [calendarRemindersTask(t.ctx)]);
    await server.tick();
    expect(pushes.some((p) => p.event === 'notice' && (p.payload as CalendarReminderPush).eventId === id)).toBe(false);
    const [row] = await t.db.select().from(calendarEvents).where(eq(calendarEvents.id, id));
    expect(row!.remindedAt).not.toBeNull();
    const counts = pushes.filter((p) => p.event === 'counts').map((p) => p.payload as CountsPush);
    expect(counts.every((c) => c.doubts === undefined)).toBe(true);
  });
});
