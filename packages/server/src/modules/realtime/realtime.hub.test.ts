import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { io as connectClient, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REALTIME_HUBS, STUDY_JOIN, type RealtimeHub, type StudyJoinAnswer } from '@ecrf/core';
import { seedDemoStudy } from '../../db/demo-study.js';
import { subjectRecords } from '../../db/schema/index.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { isolatedRealtimeKey } from './realtime.hub.js';
import { pushQueryEvent, pushRecordSaved } from './realtime.subscribers.js';

let t: TestApp;
let base: string;
let admin: string;
let studyId: number;
let crfIds: Record<string, number>;
const open: Socket[] = [];

async function listen(app: TestApp): Promise<string> {
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}`;
}

/** A client socket of one hub, reconnection off so a refusal is seen exactly once. */
function socketOf(url: string, hub: RealtimeHub, auth: { token?: string } | null, query?: Record<string, string>) {
  const socket = connectClient(`${url}/${hub}`, {
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    ...(auth ? { auth } : {}),
    ...(query ? { query } : {}),
  });
  open.push(socket);
  return socket;
}

function connected(socket: Socket): Promise<Socket> {
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

function refused(socket: Socket): Promise<Error & { data?: unknown }> {
  return new Promise((resolve, reject) => {
    socket.once('connect', () => reject(new Error('connected although it should have been refused')));
    socket.once('connect_error', resolve);
  });
}

const next = <T>(socket: Socket, event: string) => new Promise<T>((resolve) => socket.once(event, resolve));

function join(socket: Socket, id: unknown): Promise<StudyJoinAnswer> {
  return socket.timeout(10_000).emitWithAck(STUDY_JOIN, id) as Promise<StudyJoinAnswer>;
}

let monitor: string;
let nurse: string;
let nurseId: number;
let monitorId: number;
let outsider: string;
/** Staff whose study role may read no form. */
let clerk: string;
/** A patient (subjects.id) at a site the staff see: a push about a patient goes to those who see its site. */
let patientId: number;

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, studyId, crfIds } = await openDemoStudy(t));
  base = await listen(t);
  const vitals = crfIds['生命体征']!;
  const formKeys = (id: number) => [`crf:${id}:view`, `crf:${id}:save`, `crf:${id}:submit`];
  monitor = await addStudyMember(t, admin, studyId, '13500000001', {
    permissions: ['btn:study.doubt.open', 'btn:study.doubt.close', ...formKeys(vitals)],
  });
  nurse = await addStudyMember(t, admin, studyId, '13500000002', {
    permissions: ['btn:study.doubt.reply', 'btn:business.crf.save', ...formKeys(vitals)],
  });
  clerk = await addStudyMember(t, admin, studyId, '13500000003', { permissions: ['btn:study.doubt.reply'] });
  // Staff of another study only.
  const other = await t.call(admin, 'POST', '/api/business/study', { studyName: '另一个项目', studyCode: 'OTHER1' });
  expect(other.status, JSON.stringify(other.body)).toBe(200);
  const otherId = (await t.call(admin, 'GET', '/api/business/study/manage/list?pageNum=1&pageSize=50')).body.data.list
    .map((s: { id: number }) => s.id)
    .find((id: number) => id !== studyId) as number;
  outsider = await addStudyMember(t, admin, otherId, '13500000004', { permissions: [] });
  const me = async (token: string) => (await t.call(token, 'GET', '/api/sys/login/getInfo')).body.data.user.userId;
  nurseId = await me(nurse);
  monitorId = await me(monitor);
  const enrolled = await enrolDemoPatient(t, admin, studyId, { subjectName: '推送患者' });
  const [casebook] = await t.db
    .select({ subjectId: subjectRecords.subjectId })
    .from(subjectRecords)
    .where(eq(subjectRecords.id, enrolled.subjectRecordId));
  patientId = casebook!.subjectId;
});

afterAll(async () => {
  for (const socket of open) socket.disconnect();
  await t?.close();
});

describe('realtime hubs', () => {
  it('RT-01: a valid access token connects to eventhub, toolsignalhub and personsignalhub (auth.token or access_token)', async () => {
    for (const hub of REALTIME_HUBS) {
      const socket = await connected(socketOf(base, hub, { token: nurse }));
      expect(socket.connected).toBe(true);
    }
    const byQuery = await connected(socketOf(base, 'eventhub', null, { access_token: nurse }));
    expect(byQuery.connected).toBe(true);
  });

  it('RT-03: a missing, forged, expired or revoked token is refused with data { status: 401, code: 401, msg: 登录超时 }', async () => {
    const expected = { status: 401, code: 401, msg: '登录超时' };
    for (const hub of REALTIME_HUBS) {
      expect((await refused(socketOf(base, hub, null))).data).toEqual(expected);
      expect((await refused(socketOf(base, hub, { token: `${nurse}x` }))).data).toEqual(expected);
    }
    const session = await t.login('13500000001', 'Passw0rd');
    await t.call(session.token, 'POST', '/api/sys/logout', { refreshToken: session.refreshToken });
    const revoked = await refused(socketOf(base, 'personsignalhub', { token: session.token }));
    expect(revoked.data).toEqual(expected);
    expect(revoked.message).toBe('登录超时');

    const fresh = (await t.login('13500000002', 'Passw0rd')).token;
    t.clock.advance((t.ctx.config.accessTokenSeconds + 1) * 1000);
    try {
      expect((await refused(socketOf(base, 'eventhub', { token: fresh }))).data).toEqual(expected);
    } finally {
      t.clock.advance(-(t.ctx.config.accessTokenSeconds + 1) * 1000);
    }
  });

  it('RT-03: the sockets of a revoked session close at once (signed out elsewhere by a password change, signed out, disabled), those of the session kept stay', async () => {
    await addStudyMember(t, admin, studyId, '13500000006', { permissions: [] });
    const kept = await t.login('13500000006', 'Passw0rd');
    const stolen = await t.login('13500000006', 'Passw0rd');
    const stolenSockets = await Promise.all(
      REALTIME_HUBS.map((hub) => connected(socketOf(base, hub, { token: stolen.token }))),
    );
    const keptSocket = await connected(socketOf(base, 'eventhub', { token: kept.token }));
    const closed = stolenSockets.map((socket) => next<string>(socket, 'disconnect'));
    const changed = await t.call(kept.token, 'PUT', '/api/system/user/password', {
      oldPassword: 'Passw0rd',
      newPassword: 'N3wPassword',
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(await Promise.all(closed)).toEqual(REALTIME_HUBS.map(() => 'io server disconnect'));
    // A round trip on the kept socket after the others closed: it is still served.
    expect(keptSocket.connected).toBe(true);
    expect(await join(keptSocket, studyId)).toEqual({ ok: true });

    const keptClosed = next<string>(keptSocket, 'disconnect');
    await t.call(kept.token, 'POST', '/api/sys/logout', { refreshToken: kept.refreshToken });
    expect(await keptClosed).toBe('io server disconnect');

    const later = await t.login('13500000006', 'N3wPassword');
    const laterSocket = await connected(socketOf(base, 'personsignalhub', { token: later.token }));
    const laterClosed = next<string>(laterSocket, 'disconnect');
    const userId = (await t.call(later.token, 'GET', '/api/sys/login/getInfo')).body.data.user.userId as number;
    const disabled = await t.call(admin, 'PUT', '/api/system/user/status', { userId, status: 1 });
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
    expect(await laterClosed).toBe('io server disconnect');
  });

  it('the study room takes staff and study:manage holders, and refuses a user of another study and a bad id', async () => {
    const mine = await connected(socketOf(base, 'eventhub', { token: nurse }));
    expect(await join(mine, studyId)).toEqual({ ok: true });
    const administrator = await connected(socketOf(base, 'eventhub', { token: admin }));
    expect(await join(administrator, studyId)).toEqual({ ok: true });
    const stranger = await connected(socketOf(base, 'eventhub', { token: outsider }));
    expect(await join(stranger, studyId)).toEqual({ ok: false, status: 403, msg: '您未参与该项目' });
    expect(await join(stranger, 'x')).toEqual({ ok: false, status: 400, msg: '参数错误' });
    expect(await t.ctx.realtime.watchers(studyId)).toEqual(expect.arrayContaining([nurseId, 1]));
    expect(await t.ctx.realtime.watchers(studyId)).toHaveLength(2);
  });

  /** The nurse (who may read 生命体征) and the clerk (who may not) watching the study; what the clerk gets of `event`. */
  async function readerAndBlind(event: 'record.saved' | 'record.queries') {
    const reader = await connected(socketOf(base, 'eventhub', { token: nurse }));
    const blind = await connected(socketOf(base, 'eventhub', { token: clerk }));
    expect(await join(reader, studyId)).toEqual({ ok: true });
    expect(await join(blind, studyId)).toEqual({ ok: true });
    const seenByBlind: unknown[] = [];
    blind.on(event, (p: unknown) => seenByBlind.push(p));
    return { reader, blind, seenByBlind };
  }

  it('a form save reaches the watchers who may read the form, not staff without that form nor another study', async () => {
    const vitals = crfIds['生命体征']!;
    const { reader, blind, seenByBlind } = await readerAndBlind('record.saved');

    const event = { studyId, subjectId: patientId, crfId: vitals, recordId: 9, by: monitorId };
    const received = next(reader, 'record.saved');
    await pushRecordSaved(t.ctx, { id: 1, occurredAt: new Date(), event: { type: 'record.saved', ...event } });
    expect(await received).toEqual(event);

    // A push the clerk may read arrives after the one it may not: nothing came before it.
    const studyWide = next(blind, 'record.saved');
    const otherForm = { ...event, crfId: crfIds['基线信息'] ?? vitals + 1000 };
    const clerkAccess = await t.call(clerk, 'GET', `/api/business/doubts/count?studyId=${studyId}`);
    expect(clerkAccess.status).toBe(200);
    t.ctx.realtime.toStudy(studyId, 'record.saved', otherForm);
    expect(await studyWide).toEqual(otherForm);
    expect(seenByBlind).toEqual([otherForm]);
  });

  it('QRY-05: a query raised on a form (the system’s after a submit, too) reaches the form’s readers as record.queries, so their CRF page reads the form’s state again', async () => {
    const vitals = crfIds['生命体征']!;
    const { reader, blind, seenByBlind } = await readerAndBlind('record.queries');

    const received = next(reader, 'record.queries');
    const event = {
      type: 'query.opened' as const,
      studyId,
      subjectId: patientId,
      crfId: vitals,
      queryId: 77,
      by: null,
    };
    await pushQueryEvent(t.ctx, { id: 4343, occurredAt: new Date(), event });
    expect(await received).toEqual({ studyId, subjectId: patientId, crfId: vitals });

    // The clerk may not read 生命体征: a push it may read (study-wide) is the first it gets.
    const studyWide = next(blind, 'record.queries');
    t.ctx.realtime.toStudy(studyId, 'record.queries', { studyId, subjectId: patientId, crfId: vitals });
    expect(await studyWide).toEqual({ studyId, subjectId: patientId, crfId: vitals });
    expect(seenByBlind).toHaveLength(1);
  });

  it('a member removed from the study is refused the room at the next join', async () => {
    const member = await addStudyMember(t, admin, studyId, '13500000005', { permissions: ['btn:study.doubt.reply'] });
    const socket = await connected(socketOf(base, 'eventhub', { token: member }));
    expect(await join(socket, studyId)).toEqual({ ok: true });
    const staff = (await t.call(admin, 'GET', `/api/business/study_personnel/list?studyId=${studyId}`)).body.data;
    const rows = (Array.isArray(staff) ? staff : staff.list) as { id: number; userName: string }[];
    const row = rows.find((r) => r.userName === '13500000005');
    expect(row, JSON.stringify(staff)).toBeDefined();
    const removed = await t.call(admin, 'DELETE', `/api/business/study_personnel?id=${row!.id}&studyId=${studyId}`);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(await join(socket, studyId)).toEqual({ ok: false, status: 403, msg: '您未参与该项目' });
  });

  it('toUser reaches only that user', async () => {
    const nurseSocket = await connected(socketOf(base, 'personsignalhub', { token: nurse }));
    const monitorSocket = await connected(socketOf(base, 'personsignalhub', { token: monitor }));
    const toMonitor = next(monitorSocket, 'counts');
    const toNurse = next(nurseSocket, 'counts');
    t.ctx.realtime.toUser(monitorId, 'counts', { studyId, doubts: 3 });
    t.ctx.realtime.toUser(nurseId, 'counts', { studyId, doubts: 7 });
    // The nurse's first push is her own: the monitor's never reached her.
    expect(await toNurse).toEqual({ studyId, doubts: 7 });
    expect(await toMonitor).toEqual({ studyId, doubts: 3 });
  });

  it('a query raised pushes the new count and a 新质疑 notice to the nurse, the count alone to the monitor who raised it; her answer notifies the monitor', async () => {
    const vitals = crfIds['生命体征']!;
    const enrolled = await t.call(admin, 'POST', '/api/business/subject', {
      studyId,
      subjectName: '推送测试',
      gender: 0,
      diseaseCode: 'LSS',
    });
    const subjectRecordId = enrolled.body.data.subjectRecordId as number;
    const saved = await t.call(nurse, 'PUT', '/api/v3/business/crf', {
      subjectRecordId,
      crfId: vitals,
      version: 0,
      values: { sbp: 130, dbp: 80, hr: 70 },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    await t.ctx.events.drain();
    const nurseSocket = await connected(socketOf(base, 'personsignalhub', { token: nurse }));
    const monitorSocket = await connected(socketOf(base, 'personsignalhub', { token: monitor }));
    const monitorNotices: unknown[] = [];
    monitorSocket.on('notice', (n: unknown) => monitorNotices.push(n));
    const nurseCounts = next<{ studyId: number; doubts: number }>(nurseSocket, 'counts');
    const nurseNotice = next(nurseSocket, 'notice');
    const monitorCounts = next(monitorSocket, 'counts');

    const opened = await t.call(monitor, 'POST', '/api/business/doubt/open', {
      crfDataRecordId: saved.body.data.crfDataRecordId,
      itemName: 'sbp',
      doubtDescription: '请核实',
    });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    const queryId = opened.body.data.doubtId as number;
    const waiting = (await t.call(nurse, 'GET', `/api/business/doubts/count?studyId=${studyId}`)).body.data.waiting;
    expect(waiting).toBeGreaterThan(0);
    expect(await nurseCounts).toEqual({ studyId, doubts: waiting });
    expect(await nurseNotice).toEqual({
      eventId: expect.any(Number),
      kind: 'query.opened',
      studyId,
      subjectId: expect.any(Number),
      crfId: vitals,
      queryId,
      crfTitle: '生命体征',
    });
    expect(await monitorCounts).toEqual({ studyId, doubts: expect.any(Number) });
    await t.ctx.events.drain();
    expect(monitorNotices).toEqual([]);

    const answered = next(monitorSocket, 'notice');
    const replied = await t.call(nurse, 'PUT', '/api/business/doubt/reply', { doubtId: queryId, content: '已核实' });
    expect(replied.status, JSON.stringify(replied.body)).toBe(200);
    expect(await answered).toMatchObject({ kind: 'query.answered', queryId, crfTitle: '生命体征' });
  });

  it('a repeated delivery of one event pushes the same eventId again, so the client can show the notice once', async () => {
    const nurseSocket = await connected(socketOf(base, 'personsignalhub', { token: nurse }));
    const notices: { eventId: number }[] = [];
    nurseSocket.on('notice', (n: { eventId: number }) => notices.push(n));
    const event = {
      type: 'query.opened' as const,
      studyId,
      subjectId: patientId,
      crfId: crfIds['生命体征']!,
      queryId: 1,
      by: monitorId,
    };
    const counts = next(nurseSocket, 'counts');
    await pushQueryEvent(t.ctx, { id: 4242, occurredAt: new Date(), event });
    await counts;
    const second = next(nurseSocket, 'notice');
    await pushQueryEvent(t.ctx, { id: 4242, occurredAt: new Date(), event });
    await second;
    expect(notices.map((n) => n.eventId)).toEqual([4242, 4242]);
  });

  it('a save by someone else reaches the nurse watching the study, with who saved', async () => {
    const vitals = crfIds['生命体征']!;
    const enrolled = await t.call(admin, 'POST', '/api/business/subject', {
      studyId,
      subjectName: '保存推送',
      gender: 0,
      diseaseCode: 'LSS',
    });
    const watching = await connected(socketOf(base, 'eventhub', { token: nurse }));
    expect(await join(watching, studyId)).toEqual({ ok: true });
    const pushed = next(watching, 'record.saved');
    const saved = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId: enrolled.body.data.subjectRecordId,
      crfId: vitals,
      version: 0,
      values: { sbp: 120, dbp: 70, hr: 60 },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(await pushed).toEqual({
      studyId,
      subjectId: expect.any(Number),
      crfId: vitals,
      recordId: saved.body.data.crfDataRecordId,
      by: 1,
    });
  });

  it("a job's progress reaches its owner on toolsignalhub", async () => {
    t.ctx.jobs.handle('realtime.test', async (_job, tools) => {
      await tools.progress(50, '一半');
    });
    const socket = await connected(socketOf(base, 'toolsignalhub', { token: nurse }));
    const seen: { state: string; progress: number; message: string | null }[] = [];
    const half = new Promise<void>((resolve) =>
      socket.on('job.progress', (p: { state: string; progress: number; message: string | null }) => {
        seen.push(p);
        if (p.progress === 50) resolve();
      }),
    );
    const job = await t.ctx.jobs.enqueue('realtime.test', {}, { ownerId: nurseId, studyId });
    await half;
    expect(seen.find((p) => p.progress === 50)).toEqual({
      jobId: job.jobId,
      kind: 'realtime.test',
      state: 'running',
      progress: 50,
      message: '一半',
    });
  });
});

describe('realtime across app servers', () => {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

  it('with REDIS_URL, a push made on one app server reaches a client of another', async (context) => {
    const probe = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1_000 });
    probe.on('error', () => {});
    const answers = await probe
      .connect()
      .then(() => probe.ping())
      .catch(() => null);
    probe.disconnect();
    if (answers !== 'PONG') {
      context.skip(`Redis at ${redisUrl} does not answer: the cross-server push needs one`);
      return;
    }
    const key = isolatedRealtimeKey();
    const one = await createTestApp({ config: { redisUrl }, realtimeKey: key });
    const two = await createTestApp({ config: { redisUrl }, realtimeKey: key });
    try {
      await seedDemoStudy(two.db);
      const url = await listen(two);
      await listen(one);
      const adminOnTwo = (await two.login()).token;
      const socket = await connected(socketOf(url, 'toolsignalhub', { token: adminOnTwo }));
      const progress = next(socket, 'job.progress');
      const push = { jobId: 'j-1', kind: 'export', state: 'running', progress: 40, message: null };
      one.ctx.realtime.toUser(1, 'job.progress', push);
      expect(await progress).toEqual(push);
      socket.disconnect();
    } finally {
      await one.close();
      await two.close();
    }
  });
});
