import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { auditEvents, consultations, operLogs } from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { askAsPatient, listForPatient } from './advisory.service.js';

describe('在线咨询 (/api/v1/advisory/manager)', () => {
  let t: TestApp;
  let admin: string;
  let studyId: number;
  let subjectId: number;
  let code: string;
  let replier: string;
  let replierId: number;
  let reader: string;
  let outsider: string;
  let otherStudyId: number;
  const pushes: { userId: number; event: string; payload: unknown }[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    ({ admin, studyId } = await openDemoStudy(t));
    const enrolled = await t.call(admin, 'POST', '/api/business/subject', {
      studyId,
      subjectName: '王小明',
      gender: 1,
      diseaseCode: 'LSS',
    });
    expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
    const list = await t.call(admin, 'POST', '/api/v3/business/subjectRecord/list', {
      studyId,
      pageNum: 1,
      pageSize: 10,
    });
    const row = list.body.data.list.find(
      (r: { subjectRecordId: number }) => r.subjectRecordId === enrolled.body.data.subjectRecordId,
    );
    subjectId = row.id;
    code = row.identificationCode;
    replier = await addStudyMember(t, admin, studyId, '13900000301', {
      permissions: ['btn:business.consult.reply', 'btn:business.subject.identifiers'],
    });
    replierId = (await t.call(replier, 'GET', '/api/sys/login/getInfo')).body.data.user.userId;
    reader = await addStudyMember(t, admin, studyId, '13900000302', { permissions: ['btn:business.consult.view'] });
    const other = await t.call(admin, 'POST', '/api/business/study', {
      studyName: '咨询外项目',
      studyCode: 'CONSULT-X',
      diseases: [{ diseaseName: '腰椎管狭窄', diseaseCode: 'LSS' }],
    });
    otherStudyId = other.body.data.id ?? other.body.data.studyId;
    outsider = await addStudyMember(t, admin, otherStudyId, '13900000303', {
      permissions: ['btn:business.consult.reply'],
    });
    const toUser = t.ctx.realtime.toUser.bind(t.ctx.realtime);
    vi.spyOn(t.ctx.realtime, 'toUser').mockImplementation((userId, event, payload) => {
      pushes.push({ userId, event, payload });
      toUser(userId, event, payload);
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  const auditOf = async (action: string) =>
    t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, studyId), eq(auditEvents.action, action)))
      .orderBy(asc(auditEvents.id));

  it('KNOW-05: staff enter a question on a patient’s behalf; it is audited, pushed to the answerers, and listed as 待回复', async () => {
    pushes.length = 0;
    const created = await t.call(replier, 'POST', '/api/v1/advisory/manager', {
      studyId,
      subjectId,
      title: '术后能否洗澡',
      question: '伤口拆线后多久可以洗澡？',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.data).toMatchObject({
      subjectId,
      identificationCode: code,
      subjectName: '王小明',
      source: 'staff',
      state: 0,
      stateName: '待回复',
      createdByName: '成员301',
    });
    const [trail] = await auditOf('consult.ask');
    expect(trail).toMatchObject({
      itemName: `咨询#${created.body.data.id}`,
      newValue: { title: '术后能否洗澡', question: '伤口拆线后多久可以洗澡？' },
    });
    expect(trail!.subjectRecordId).not.toBeNull();
    expect(pushes).toContainEqual({
      userId: replierId,
      event: 'consult',
      payload: { studyId, consultId: created.body.data.id, kind: 'consult.asked' },
    });
    // The push names ids only: never the question or the patient.
    expect(JSON.stringify(pushes)).not.toContain('洗澡');

    const listed = await t.call(reader, 'GET', `/api/v1/advisory/manager/list?studyId=${studyId}&state=0`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.total).toBe(1);
    // Without 查看患者身份信息 the patient's name is masked, as in the patient list.
    expect(listed.body.data.list[0]).toMatchObject({ title: '术后能否洗澡', subjectName: '王**' });
  });

  it('KNOW-05: answers then closes a question (已回复, 已关闭), each audited with old and new; a closed one takes no answer', async () => {
    const { id } = await askAsPatient(t.ctx, { studyId, subjectId }, { title: '复查时间', question: '何时复查？' });
    const asked = await t.call(replier, 'GET', `/api/v1/advisory/manager/${id}?studyId=${studyId}`);
    expect(asked.body.data).toMatchObject({ source: 'patient', state: 0, createdByName: null });

    pushes.length = 0;
    const answered = await t.call(replier, 'PUT', `/api/v1/advisory/manager/${id}/answer`, {
      studyId,
      answer: '术后3个月复查',
    });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    expect(answered.body.msg).toBe('回复成功');
    expect(answered.body.data).toMatchObject({ state: 1, stateName: '已回复', answer: '术后3个月复查' });
    expect(answered.body.data.answeredByName).toBe('成员301');
    expect(pushes.map((p) => p.payload)).toContainEqual({ studyId, consultId: id, kind: 'consult.answered' });
    const [answerTrail] = await auditOf('consult.answer');
    expect(answerTrail).toMatchObject({
      oldValue: { state: '待回复', answer: null },
      newValue: { state: '已回复', answer: '术后3个月复查' },
    });

    const closed = await t.call(replier, 'PUT', `/api/v1/advisory/manager/${id}/close`, { studyId });
    expect(closed.body.data).toMatchObject({ state: 2, stateName: '已关闭' });
    expect((await auditOf('consult.close')).at(-1)).toMatchObject({
      oldValue: { state: '已回复' },
      newValue: { state: '已关闭' },
    });
    const again = await t.call(replier, 'PUT', `/api/v1/advisory/manager/${id}/answer`, { studyId, answer: '再答' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ msg: '咨询已关闭' });

    const mine = await listForPatient(t.ctx, { studyId, subjectId });
    expect(mine.find((c) => c.id === id)).toMatchObject({ state: 2, answer: '术后3个月复查' });
  });

  it('KNOW-05, HTTP-08: the list is paged, filters by state and keyword (title, question, patient code), waiting first', async () => {
    for (let i = 1; i <= 11; i += 1) {
      await askAsPatient(t.ctx, { studyId, subjectId }, { title: `分页${i}`, question: '问题' });
    }
    const first = await t.call(reader, 'GET', `/api/v1/advisory/manager/list?studyId=${studyId}&keyword=分页`);
    expect(first.body.data.total).toBe(11);
    expect(first.body.data.list).toHaveLength(10);
    const second = await t.call(
      reader,
      'GET',
      `/api/v1/advisory/manager/list?studyId=${studyId}&keyword=分页&pageNum=2&pageSize=10`,
    );
    expect(second.body.data.list).toHaveLength(1);
    const byCode = await t.call(reader, 'GET', `/api/v1/advisory/manager/list?studyId=${studyId}&keyword=${code}`);
    expect(byCode.body.data.total).toBe(13);
    const all = await t.call(reader, 'GET', `/api/v1/advisory/manager/list?studyId=${studyId}&pageSize=50`);
    const states = (all.body.data.list as { state: number }[]).map((c) => c.state);
    expect(states.indexOf(2)).toBeGreaterThan(states.lastIndexOf(0));
    const closedOnly = await t.call(reader, 'GET', `/api/v1/advisory/manager/list?studyId=${studyId}&state=2`);
    expect(closedOnly.body.data.total).toBe(1);
    // A wildcard typed by the user matches itself only.
    const wild = await t.call(reader, 'GET', `/api/v1/advisory/manager/list?studyId=${studyId}&keyword=%25`);
    expect(wild.body.data.total).toBe(0);
  });

  it('KNOW-05: permissions — a member with 查看咨询 and without 回复咨询 reads but may not answer, close or enter; a non-member and an anonymous caller are refused', async () => {
    const [row] = await t.db.select().from(consultations).where(eq(consultations.studyId, studyId)).limit(1);
    const id = row!.id;
    for (const [method, url, body] of [
      ['PUT', `/api/v1/advisory/manager/${id}/answer`, { studyId, answer: '答' }],
      ['PUT', `/api/v1/advisory/manager/${id}/close`, { studyId }],
      ['POST', '/api/v1/advisory/manager', { studyId, subjectId, title: '标题', question: '问' }],
    ] as const) {
      const res = await t.call(reader, method, url, body);
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body.msg).toBe('当前用户无操作权限，请联系管理员');
    }
    const foreign = await t.call(outsider, 'GET', `/api/v1/advisory/manager/list?studyId=${studyId}`);
    expect(foreign.status).toBe(403);
    // A member of another study cannot reach this study's question through their own study either.
    const cross = await t.call(outsider, 'PUT', `/api/v1/advisory/manager/${id}/answer`, {
      studyId: otherStudyId,
      answer: '越权',
    });
    expect(cross.status).toBe(404);
    expect(cross.body.msg).toBe('咨询不存在');
    const anonymous = await t.app.inject({ method: 'GET', url: `/api/v1/advisory/manager/list?studyId=${studyId}` });
    expect(anonymous.statusCode).toBe(401);
    // The study administrator (study:manage) may do everything.
    expect((await t.call(admin, 'PUT', `/api/v1/advisory/manager/${id}/close`, { studyId })).status).toBe(200);
  });

  it('KNOW-05: refuses a patient of another study, empty and over-long texts; logs no question text', async () => {
    const wrongPatient = await t.call(replier, 'POST', '/api/v1/advisory/manager', {
      studyId,
      subjectId: 999999,
      title: '标题',
      question: '问',
    });
    expect(wrongPatient.status).toBe(400);
    expect(wrongPatient.body.msg).toBe('患者不存在');
    const empty = await t.call(replier, 'POST', '/api/v1/advisory/manager', {
      studyId,
      subjectId,
      title: '  ',
      question: '问',
    });
    expect(empty.status).toBe(400);
    const long = await t.call(replier, 'POST', '/api/v1/advisory/manager', {
      studyId,
      subjectId,
      title: '标题',
      question: '长'.repeat(2001),
    });
    expect(long.status).toBe(400);
    await t.app.flushOperLogs();
    const logs = await t.db.select().from(operLogs).where(eq(operLogs.title, '在线咨询'));
    expect(logs.length).toBeGreaterThan(0);
    expect(JSON.stringify(logs)).not.toContain('洗澡');
  });
});

describe('在线咨询 on the patient side (/api/ignore/patient/consult)', () => {
  let t: TestApp;
  let admin: string;
  let studyId: number;
  let replier: string;

  const patientCall = async (token: string | null, method: string, url: string, payload?: unknown) => {
    const res = await t.app.inject({
      method: method as 'GET',
      url,
      headers: token ? { 'x-patient-token': token } : {},
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
    return { status: res.statusCode, body: res.json() as { code: number; msg: string; data: any } };
  };

  async function boundPatient(name: string) {
    const enrolled = await t.call(admin, 'POST', '/api/business/subject', {
      studyId,
      subjectName: name,
      gender: 0,
      diseaseCode: 'LSS',
    });
    const subjectId = enrolled.body.data.id as number;
    const code = (await t.call(admin, 'POST', '/api/business/wechat/bind-code', { studyId, subjectId })).body.data
      .code as string;
    const bound = await patientCall(null, 'POST', '/api/ignore/patient/bind', { studyId, code });
    expect(bound.status, JSON.stringify(bound.body)).toBe(200);
    return { subjectId, token: bound.body.data.token as string };
  }

  beforeAll(async () => {
    t = await createTestApp();
    ({ admin, studyId } = await openDemoStudy(t));
    replier = await addStudyMember(t, admin, studyId, '13900000311', {
      permissions: ['btn:business.consult.reply'],
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('KNOW-05: a bound patient asks, staff see it as 患者提交 and answer, and the patient reads only their own answers', async () => {
    const first = await boundPatient('钱一');
    const second = await boundPatient('钱二');
    const asked = await patientCall(first.token, 'POST', '/api/ignore/patient/consult', {
      title: '能否开车',
      question: '术后一个月能开车吗？',
    });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    const id = asked.body.data.id as number;
    const staffView = await t.call(replier, 'GET', `/api/v1/advisory/manager/${id}?studyId=${studyId}`);
    expect(staffView.body.data).toMatchObject({ subjectId: first.subjectId, source: 'patient', state: 0 });
    await t.call(replier, 'PUT', `/api/v1/advisory/manager/${id}/answer`, { studyId, answer: '术后六周后可以' });
    const mine = await patientCall(first.token, 'GET', '/api/ignore/patient/consult');
    expect(mine.body.data).toEqual([expect.objectContaining({ id, state: 1, answer: '术后六周后可以' })]);
    const theirs = await patientCall(second.token, 'GET', '/api/ignore/patient/consult');
    expect(theirs.body.data).toEqual([]);
    const [trail] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, studyId), eq(auditEvents.action, 'consult.ask')));
    expect(trail).toMatchObject({ userId: 0, userName: `患者(subject:${first.subjectId})` });
  });

  it('KNOW-05: without a patient session the calls answer 401; an empty question is refused', async () => {
    expect((await patientCall(null, 'GET', '/api/ignore/patient/consult')).status).toBe(401);
    expect((await patientCall('1.forgedforgedforgedforged', 'GET', '/api/ignore/patient/consult')).status).toBe(401);
    const { token } = await boundPatient('钱三');
    const empty = await patientCall(token, 'POST', '/api/ignore/patient/consult', { title: '标题', question: ' ' });
    expect(empty.status).toBe(400);
  });
});
