import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDemoStudy } from '../../test/demo.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

describe('a calendar event about a patient (日历 · 患者)', () => {
  let t: TestApp;
  let admin: string;
  let studyId: number;
  let subjectId: number;
  let subjectRecordId: number;
  let otherSubjectId: number;
  let nurse: string;

  const event = (extra: object) => ({
    studyId,
    title: '复诊',
    allDay: false,
    startTime: '2026-11-23T09:00:00+08:00',
    endTime: '2026-11-23T10:00:00+08:00',
    ...extra,
  });

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
    subjectRecordId = enrolled.body.data.subjectRecordId;
    const list = await t.call(admin, 'POST', '/api/v3/business/subjectRecord/list', {
      studyId,
      pageNum: 1,
      pageSize: 10,
    });
    subjectId = list.body.data.list.find((r: { subjectRecordId: number }) => r.subjectRecordId === subjectRecordId).id;
    const other = await t.call(admin, 'POST', '/api/business/study', {
      studyName: '日历外项目',
      studyCode: 'CAL-SUBJ',
      diseases: [{ diseaseName: '腰椎管狭窄', diseaseCode: 'LSS' }],
    });
    const otherStudyId = other.body.data.id ?? other.body.data.studyId;
    const foreign = await t.call(admin, 'POST', '/api/business/subject', {
      studyId: otherStudyId,
      identificationCode: 'X-001',
      subjectName: '赵外人',
      gender: 0,
      diseaseCode: 'LSS',
    });
    const otherList = await t.call(admin, 'POST', '/api/v3/business/subjectRecord/list', {
      studyId: otherStudyId,
      pageNum: 1,
      pageSize: 10,
    });
    expect(foreign.status, JSON.stringify(foreign.body)).toBe(200);
    otherSubjectId = otherList.body.data.list[0].id;
    nurse = await addStudyMember(t, admin, studyId, '13900000201', { permissions: [] });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('FOLLOW-16: an event names a patient of the study: code, name and the casebook to open', async () => {
    const created = await t.call(admin, 'POST', '/api/business/events', event({ subjectId }));
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.data).toMatchObject({
      subjectId,
      subject: { subjectId, subjectRecordId, subjectName: '王小明', identificationCode: expect.any(String) },
    });
    const read = await t.call(admin, 'GET', `/api/business/events/${created.body.data.id}?studyId=${studyId}`);
    expect(read.body.data.subject.subjectRecordId).toBe(subjectRecordId);
    const listed = await t.call(
      admin,
      'GET',
      `/api/business/events?studyId=${studyId}&startDate=2026-11-23&endDate=2026-11-23&pageNum=1&pageSize=10`,
    );
    expect(listed.body.data.list[0].subject.subjectName).toBe('王小明');
    const cleared = await t.call(
      admin,
      'PUT',
      `/api/business/events/${created.body.data.id}`,
      event({ subjectId: null }),
    );
    expect(cleared.status).toBe(200);
    expect(cleared.body.data).toMatchObject({ subjectId: null, subject: null });
  });

  it('FOLLOW-16: staff without 查看患者身份信息 see the name masked on their own event', async () => {
    const created = await t.call(nurse, 'POST', '/api/business/events', event({ subjectId }));
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.data.subject.subjectName).toBe('王**');
  });

  it('FOLLOW-16: a patient of another study, or none at all, is refused (患者不存在)', async () => {
    for (const id of [otherSubjectId, 999_999]) {
      const res = await t.call(admin, 'POST', '/api/business/events', event({ subjectId: id }));
      expect(res.status, String(id)).toBe(400);
      expect(res.body.msg).toBe('患者不存在');
    }
  });
});
