import type { AddressInfo } from 'node:net';
import { io as connectClient, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CountsPush } from '@ecrf/core';
import { openDemoStudy } from '../../test/demo.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { followStates } from './follow-states.task.js';
import { pushVisitChanges } from './follow-push.js';

const DAY = 86_400_000;
const PASSWORD = 'Passw0rd';
const NURSE = '13600000001';
const READER = '13600000002';

let t: TestApp;
let base: string;
let admin: string;
let adminId: number;
let nurse: string;
let nurseId: number;
let studyId: number;
let crfIds: Record<string, number>;
const patients: number[] = [];
const sockets: Socket[] = [];

interface Visit {
  followRecordId: number;
  visitName: string;
  state: number;
  crfs: { followRecordCrfId: number }[];
}

const overviewUrl = () => `/api/business/follow/overview?studyId=${studyId}`;

async function visitsOf(subjectRecordId: number): Promise<Visit[]> {
  const res = await t.call(admin, 'GET', `/api/business/subject/follows?subjectRecordId=${subjectRecordId}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}
const visit = async (patient: number, name: string) =>
  (await visitsOf(patients[patient]!)).find((v) => v.visitName === name)!;

/** Submits a visit's form as it is filled from 随访记录 · 填写 (the save carries the visit form's id). */
async function fill(patient: number, name: string) {
  const v = await visit(patient, name);
  const res = await t.call(admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId: patients[patient],
    crfId: crfIds['术后随访'],
    version: 0,
    values: { odi: 20, fu_date: '2026-11-25' },
    followRecordCrfId: v.crfs[0]!.followRecordCrfId,
    submit: true,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await t.ctx.events.drain();
}

function personalSocket(token: string): Promise<Socket> {
  const socket = connectClient(`${base}/personsignalhub`, {
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    auth: { token },
  });
  sockets.push(socket);
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

/** The next follow count pushed to a socket for the study (other counts, e.g. queries, are passed over). */
function nextVisits(socket: Socket): Promise<number> {
  return new Promise((resolve) => {
    const listener = (push: CountsPush) => {
      if (push.studyId !== studyId || push.visits === undefined) return;
      socket.off('counts', listener);
      resolve(push.visits);
    };
    socket.on('counts', listener);
  });
}

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, studyId, crfIds } = await openDemoStudy(t));
  adminId = (await t.login()).user.userId;
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  nurse = await addStudyMember(t, admin, studyId, NURSE, { permissions: ['btn:business.follow.record'] });
  nurseId = (await t.call(nurse, 'GET', '/api/sys/login/getInfo')).body.data.user.userId;
  // No trigger item: a patient's trigger date is the enrolment day, 2026-11-22 (a Sunday) in Asia/Shanghai.
  const step = (visitName: string, offset: number, before: number, after: number, responsibleUserId: number) => ({
    visitName,
    offset,
    unit: 'day',
    windowBefore: before,
    windowAfter: after,
    responsibleUserId,
    crfIds: [crfIds['术后随访']],
  });
  const plan = await t.call(admin, 'POST', '/api/business/follow', {
    studyId,
    planName: '概览计划',
    // 第3天's window stays open for a year: a submission is dated by when it happened, which the test clock
    // does not move, so a short window would make "on time" depend on the day the test runs.
    visits: [step('第0天', 0, 0, 0, nurseId), step('第1天', 1, 0, 0, nurseId), step('第3天', 3, 1, 365, adminId)],
  });
  expect(plan.status, JSON.stringify(plan.body)).toBe(200);
  for (const subjectName of ['张三丰', '李四光']) {
    const res = await t.call(admin, 'POST', '/api/business/subject', {
      studyId,
      subjectName,
      gender: 1,
      diseaseCode: 'LSS',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    patients.push(res.body.data.subjectRecordId);
  }
  await t.ctx.events.drain();
});

afterAll(async () => {
  for (const socket of sockets) socket.disconnect();
  await t?.close();
});

describe('随访概览 (GET /api/business/follow/overview)', () => {
  it('FOLLOW-02: on the enrolment day the week (Mon–Sun, study zone) holds the two visits due today', async () => {
    const res = await t.call(admin, 'GET', overviewUrl());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({
      today: '2026-11-22',
      weekStart: '2026-11-16',
      weekEnd: '2026-11-22',
      thisWeek: { total: 2, pending: 2, done: 0 },
      notDue: 4,
      due: 2,
      overdue: 0,
      judged: 0,
      onTimeRate: null,
      completionRate: null,
    });
  });

  it('FOLLOW-02: three days on, counts per visit (on time, late, missed, lost, rates) and per responsible person', async () => {
    t.clock.advance(3 * DAY); // Wednesday 2026-11-25: a new week
    admin = (await t.login()).token;
    nurse = (await t.login(NURSE, PASSWORD)).token;
    const lost = await t.call(admin, 'PUT', '/api/business/follow/record/status', {
      followRecordId: (await visit(1, '第0天')).followRecordId,
      action: 'lost',
      reason: '电话无人接听',
    });
    expect(lost.status, JSON.stringify(lost.body)).toBe(200);
    await fill(0, '第1天'); // after its window: 超窗完成
    await fill(0, '第3天'); // inside its window: 已完成

    const res = await t.call(admin, 'GET', overviewUrl());
    expect(res.status).toBe(200);
    const o = res.body.data;
    expect(o).toMatchObject({
      today: '2026-11-25',
      weekStart: '2026-11-23',
      weekEnd: '2026-11-29',
      thisWeek: { total: 4, pending: 2, done: 2 },
      notDue: 0,
      due: 1,
      overdue: 2,
      onTime: 1,
      late: 1,
      missed: 2,
      lost: 1,
      judged: 5,
      onTimeRate: 0.2,
      completionRate: 0.4,
    });
    expect(
      o.visits.map((v: Record<string, unknown>) => [
        v.visitName,
        v.total,
        v.onTime,
        v.late,
        v.missed,
        v.lost,
        v.pending,
      ]),
    ).toEqual([
      ['第0天', 2, 0, 0, 1, 1, 0],
      ['第1天', 2, 0, 1, 1, 0, 0],
      ['第3天', 2, 1, 0, 0, 0, 1],
    ]);
    expect(o.visits[1]).toMatchObject({ planName: '概览计划', onTimeRate: 0, completionRate: 0.5 });
    expect(o.visits[2]).toMatchObject({ judged: 1, onTimeRate: 1, completionRate: 1 });
    expect(o.responsible).toEqual([
      { userId: nurseId, name: expect.any(String), weekPending: 1, due: 0, overdue: 2, done: 1, lost: 1, total: 4 },
      { userId: adminId, name: expect.any(String), weekPending: 1, due: 1, overdue: 0, done: 1, lost: 0, total: 2 },
    ]);
    expect(o.weekVisits.map((v: Record<string, unknown>) => [v.visitName, v.subjectName, v.stateName])).toEqual([
      ['第1天', '张三丰', '超窗完成'],
      ['第1天', '李四光', '已超窗'],
      ['第3天', '张三丰', '已完成'],
      ['第3天', '李四光', '待随访'],
    ]);
    expect(o.weekVisits[3]).toMatchObject({
      plannedDate: '2026-11-25',
      windowStart: '2026-11-24',
      windowEnd: '2027-11-25',
    });
  });

  it('FOLLOW-01: permissions as the record list: staff with or without 处理随访记录 read it (names masked without 查看患者身份信息); outsiders 403, anonymous 401', async () => {
    const withButton = await t.call(nurse, 'GET', overviewUrl());
    expect(withButton.status).toBe(200);
    expect(withButton.body.data.weekVisits.map((v: { subjectName: string }) => v.subjectName)).toEqual([
      '张**',
      '李**',
      '张**',
      '李**',
    ]);
    const reader = await addStudyMember(t, admin, studyId, READER, { permissions: [] });
    const without = await t.call(reader, 'GET', overviewUrl());
    expect(without.status).toBe(200);
    expect(without.body.data.due).toBe(1);
    // The record list the overview links to answers the same member alike.
    expect((await t.call(reader, 'GET', `/api/business/follow/records?studyId=${studyId}&state=2`)).status).toBe(200);

    const other = await t.call(admin, 'POST', '/api/business/study', { studyName: '概览外项目', studyCode: 'FU-OV-2' });
    expect(other.status, JSON.stringify(other.body)).toBe(200);
    const otherId = other.body.data.id ?? other.body.data.studyId;
    const outsider = await addStudyMember(t, admin, otherId, '13600000003', {
      permissions: ['btn:business.follow.record'],
    });
    expect((await t.call(outsider, 'GET', overviewUrl())).status).toBe(403);
    const anonymous = await t.app.inject({ method: 'GET', url: overviewUrl() });
    expect(anonymous.statusCode).toBe(401);
    expect((await t.call(admin, 'GET', '/api/business/follow/overview?studyId=abc')).status).toBe(400);
  });
});

describe('follow counts pushed to the people responsible (SHELL-22)', () => {
  it('SHELL-22: marking a visit lost, changing its date and submitting its form push the new count to its responsible person', async () => {
    const nurseSocket = await personalSocket(nurse);
    const adminSocket = await personalSocket(admin);
    // Now: the nurse waits for 第0天 of patient 1 and 第1天 of patient 2 (both 已超窗); the administrator for 第3天.
    let pushed = nextVisits(nurseSocket);
    const moved = await t.call(admin, 'PUT', '/api/business/subject/follow/record', {
      followRecordId: (await visit(1, '第1天')).followRecordId,
      plannedDate: '2026-12-10',
      reason: '患者出差',
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(await pushed).toBe(1);

    pushed = nextVisits(nurseSocket);
    const lost = await t.call(admin, 'PUT', '/api/business/follow/record/status', {
      followRecordId: (await visit(0, '第0天')).followRecordId,
      action: 'lost',
      reason: '搬迁外地',
    });
    expect(lost.status).toBe(200);
    expect(await pushed).toBe(0);

    const adminPushed = nextVisits(adminSocket);
    await fill(1, '第3天');
    expect(await adminPushed).toBe(0);
  });

  it('SHELL-22: the hourly state task pushes to those whose visits moved into or out of their window', async () => {
    const nurseSocket = await personalSocket(nurse);
    const pushed = nextVisits(nurseSocket);
    // 2026-12-09: patient 2's moved 第1天 (2026-12-10, no window) is still ahead; on 12-10 it is 待随访.
    t.clock.advance(15 * DAY);
    const outcome = await followStates(t.db, (changes) => pushVisitChanges(t.ctx, changes)).run(t.clock());
    expect(outcome).toBe('1 follow-up visit states changed');
    expect(await pushed).toBe(1);
  });
});
