import { and, asc, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditEvents,
  crfDataRecords,
  followRecordCrfs,
  patientBindCodes,
  patientSessions,
  subjects,
} from '../../db/schema/index.js';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import {
  BIND_ADDRESS_FAILURE_LIMIT,
  BIND_CODE_FAILURE_LIMIT,
  BIND_FAILURE_WINDOW_MS,
  BIND_PATIENT_FAILURE_LIMIT,
} from './bind-limits.js';
import { BIND_CODE_TTL_MS } from './patient-binding.service.js';

const HOUR = 60 * 60 * 1000;

describe('patient side: binding, patient sessions and patient-reported forms', () => {
  let t: TestApp;
  let admin: string;
  let studyId: number;
  let otherStudyId: number;
  let crfIds: Record<string, number>;
  let nurse: string;
  let viewer: string;
  const patients: Record<string, { id: number; subjectRecordId: number; identificationCode: string }> = {};

  async function patientCall(token: string | null, method: string, url: string, payload?: unknown) {
    const res = await t.app.inject({
      method: method as 'GET',
      url,
      headers: token ? { 'x-patient-token': token } : {},
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
    return { status: res.statusCode, body: res.json() as { code: number; msg: string; data: any } };
  }

  async function enrol(name: string) {
    const res = await t.call(admin, 'POST', '/api/business/subject', {
      studyId,
      subjectName: name,
      gender: 1,
      birth: '1958-03-02',
      diseaseCode: 'LSS',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as { id: number; subjectRecordId: number; identificationCode: string };
  }

  async function issue(subjectId: number, token = nurse, study = studyId) {
    return t.call(token, 'POST', '/api/business/wechat/bind-code', { studyId: study, subjectId });
  }

  async function bindWith(code: string, study = studyId) {
    return patientCall(null, 'POST', '/api/ignore/patient/bind', { studyId: study, code });
  }

  async function boundPatient(subjectId: number) {
    const code = (await issue(subjectId)).body.data.code as string;
    const bound = await bindWith(code);
    expect(bound.status, JSON.stringify(bound.body)).toBe(200);
    return bound.body.data.token as string;
  }

  const vitals = () => crfIds['生命体征']!;
  const demographics = () => crfIds['人口学资料']!;

  beforeAll(async () => {
    t = await createTestApp();
    ({ admin, studyId, crfIds } = await openDemoStudy(t));
    nurse = await addStudyMember(t, admin, studyId, '13900000301', {
      permissions: ['btn:business.subject.edit', `crf:${crfIds['生命体征']}:view`],
    });
    viewer = await addStudyMember(t, admin, studyId, '13900000302', { permissions: [] });
    const other = await t.call(admin, 'POST', '/api/business/study', {
      studyName: '另一项研究',
      studyCode: 'OTHERPP',
      diseases: [{ diseaseName: '腰椎管狭窄', diseaseCode: 'LSS' }],
    });
    expect(other.status, JSON.stringify(other.body)).toBe(200);
    otherStudyId = other.body.data.id as number;
    patients.a = await enrol('张三');
    patients.b = await enrol('李四');
    const saved = await t.call(admin, 'PUT', '/api/business/wechat/settings', {
      studyId,
      bindEnabled: true,
      appId: '',
      welcome: '欢迎参加本研究',
      proCrfIds: [vitals()],
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('KNOW-03: binds a patient with a one-time code: hashed at rest, openId on the patient (cut in the trail without 查看患者身份信息), a patient session, audited', async () => {
    const issued = await issue(patients.a!.id);
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const code = issued.body.data.code as string;
    expect(code).toMatch(/^[A-Z2-9]{8}$/);
    const [row] = await t.db.select().from(patientBindCodes).where(eq(patientBindCodes.subjectId, patients.a!.id));
    expect(row!.codeHash).toHaveLength(64);
    expect(row!.codeHash).not.toContain(code);

    // Typed in lower case with a space, as a patient may.
    const bound = await bindWith(`${code.slice(0, 4).toLowerCase()} ${code.slice(4)}`);
    expect(bound.status, JSON.stringify(bound.body)).toBe(200);
    expect(bound.body.data.token).toMatch(new RegExp(`^${studyId}\\.`));
    const [subject] = await t.db.select().from(subjects).where(eq(subjects.id, patients.a!.id));
    expect(subject!.openId).toMatch(/^dev_[0-9a-f]{28}$/);
    const [session] = await t.db.select().from(patientSessions).where(eq(patientSessions.subjectId, patients.a!.id));
    expect(session!.tokenHash).not.toContain(bound.body.data.token.split('.')[1]);

    const trail = await t.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.subjectRecordId, patients.a!.subjectRecordId))
      .orderBy(asc(auditEvents.id));
    expect(trail.map((e) => e.action)).toEqual(expect.arrayContaining(['patient.bind_code', 'patient.bind']));
    expect(trail.find((e) => e.action === 'patient.bind')!.userName).toBe(
      `患者填写(${patients.a!.identificationCode})`,
    );

    const home = await patientCall(bound.body.data.token, 'GET', '/api/ignore/patient/home');
    expect(home.body.data).toMatchObject({
      identificationCode: patients.a!.identificationCode,
      subjectName: '张*',
      welcome: '欢迎参加本研究',
    });

    // The binding's trail row holds the openId; a member without 查看患者身份信息 reads it cut, as the list shows it.
    const operates = await t.call(
      viewer,
      'GET',
      `/api/business/subjectRecord/operates?subjectRecordId=${patients.a!.subjectRecordId}&pageNum=1&pageSize=50`,
    );
    const bindRow = operates.body.data.list.find((e: { action: string }) => e.action === 'patient.bind');
    expect(bindRow.newValue).toBe(`${subject!.openId!.slice(0, 8)}…`);
    expect(JSON.stringify(operates.body)).not.toContain(subject!.openId!);
    const asAdmin = await t.call(admin, 'GET', `/api/business/subjectRecord/operate?id=${bindRow.id}`);
    expect(asAdmin.body.data.newValue).toBe(subject!.openId);

    const list = await t.call(nurse, 'GET', `/api/business/wechat/users?studyId=${studyId}&bound=true`);
    expect(list.body.data.list.map((p: { subjectId: number }) => p.subjectId)).toEqual([patients.a!.id]);
    // The nurse has no identifiers permission: names masked.
    expect(list.body.data.list[0].subjectName).toBe('张*');
  });

  it('KNOW-03: a code binds once; an expired code, a revoked code and a code of another study are refused alike', async () => {
    const first = (await issue(patients.b!.id)).body.data.code as string;
    // A second code revokes the first.
    const second = (await issue(patients.b!.id)).body.data.code as string;
    const revoked = await bindWith(first);
    expect(revoked.status).toBe(400);
    expect(revoked.body.msg).toBe('绑定码无效或已过期');

    const wrongStudy = await bindWith(second, otherStudyId);
    expect(wrongStudy.status).toBe(400);
    expect(wrongStudy.body.msg).toBe('绑定码无效或已过期');

    t.clock.advance(BIND_CODE_TTL_MS + HOUR);
    // Staff access tokens are short-lived too: sign in again on the later day.
    admin = (await t.login()).token;
    nurse = (await t.login('13900000301', 'Passw0rd')).token;
    viewer = (await t.login('13900000302', 'Passw0rd')).token;
    const expired = await bindWith(second);
    expect(expired.status).toBe(400);
    expect(expired.body.msg).toBe('绑定码无效或已过期');

    const fresh = (await issue(patients.b!.id)).body.data.code as string;
    expect((await bindWith(fresh)).status).toBe(200);
    const reused = await bindWith(fresh);
    expect(reused.status).toBe(400);
    expect(reused.body.msg).toBe('绑定码无效或已过期');
    // One live code per patient, by the partial unique index.
    const live = await t.db
      .select()
      .from(patientBindCodes)
      .where(and(eq(patientBindCodes.subjectId, patients.b!.id)));
    expect(live.filter((c) => !c.usedAt && !c.revokedAt)).toHaveLength(0);
  });

  it('KNOW-03: staff without 编辑患者 cannot issue codes or unbind; non-staff and other studies are refused', async () => {
    expect((await issue(patients.a!.id, viewer)).status).toBe(403);
    expect(
      (await t.call(viewer, 'POST', '/api/business/wechat/unbind', { studyId, subjectId: patients.a!.id })).status,
    ).toBe(403);
    expect((await t.call(viewer, 'GET', `/api/business/wechat/users?studyId=${studyId}`)).status).toBe(200);
    // A patient of this study named under another study is not found there.
    expect((await issue(patients.a!.id, admin, otherStudyId)).status).toBe(404);
    // Only study:config changes the settings.
    expect(
      (
        await t.call(nurse, 'PUT', '/api/business/wechat/settings', {
          studyId,
          bindEnabled: true,
          proCrfIds: [],
        })
      ).status,
    ).toBe(403);
  });

  it('KNOW-03: wrong codes are limited per address (a high ceiling), per code and per patient; the right code from an address with ten wrong ones still binds', async () => {
    const t2 = await createTestApp();
    try {
      const demo = await openDemoStudy(t2);
      const s2 = demo.studyId;
      const enrolled = await Promise.all(
        ['王五', '赵六'].map((subjectName) => enrolDemoPatient(t2, demo.admin, s2, { subjectName })),
      );
      const subjectIds = await Promise.all(
        enrolled.map(
          async (p) =>
            (await t2.db.select().from(subjects).where(eq(subjects.identificationCode, p.identificationCode)))[0]!.id,
        ),
      );
      const issue2 = async (subjectId: number) =>
        (await t2.call(demo.admin, 'POST', '/api/business/wechat/bind-code', { studyId: s2, subjectId })).body.data
          .code as string;
      const bind2 = async (code: string, remoteAddress = '203.0.113.7') => {
        const res = await t2.app.inject({
          method: 'POST',
          url: '/api/ignore/patient/bind',
          remoteAddress,
          payload: { studyId: s2, code },
        });
        return { status: res.statusCode, body: res.json() as { msg: string } };
      };

      // A clinic behind one address: ten patients mistype, the eleventh binds.
      for (let i = 0; i < 10; i += 1) expect((await bind2(`TYPO${i}AB`)).status).toBe(400);
      expect((await bind2(await issue2(subjectIds[0]!))).status).toBe(200);

      // Per code: the same wrong code is refused after its limit; other codes from the address go on.
      for (let i = 0; i < BIND_CODE_FAILURE_LIMIT; i += 1) {
        expect((await bind2('SAMETYPO', '203.0.113.8')).status).toBe(400);
      }
      expect((await bind2('SAMETYPO', '198.51.100.1')).body.msg).toBe('尝试次数过多，请稍后再试');
      expect((await bind2('OTHERTYP', '203.0.113.8')).status).toBe(400);

      // Per patient: the patient's old codes tried in turn pause that patient's binding, the live code too.
      const stale: string[] = [];
      for (let i = 0; i < BIND_PATIENT_FAILURE_LIMIT; i += 1) stale.push(await issue2(subjectIds[1]!));
      const live = await issue2(subjectIds[1]!);
      for (const old of stale) expect((await bind2(old, '192.0.2.1')).status).toBe(400);
      expect((await bind2(live, '192.0.2.2')).status).toBe(429);
      t2.clock.advance(BIND_FAILURE_WINDOW_MS + 1000);
      expect((await bind2(live, '192.0.2.2')).status).toBe(200);

      // Per address: the ceiling stops guessing from one place, the right code included.
      const tries: number[] = [];
      for (let i = 0; i < BIND_ADDRESS_FAILURE_LIMIT + 1; i += 1) {
        tries.push((await bind2(`GUESS${i}`, '198.51.100.9')).status);
      }
      expect(tries.slice(0, BIND_ADDRESS_FAILURE_LIMIT).every((s) => s === 400)).toBe(true);
      expect(tries[BIND_ADDRESS_FAILURE_LIMIT]).toBe(429);
      expect((await bind2(await issue2(subjectIds[0]!), '198.51.100.9')).status).toBe(429);
    } finally {
      await t2.close();
    }
  });

  it('KNOW-03: a patient reads and writes only their own assigned forms (permission matrix)', async () => {
    const a = await boundPatient(patients.a!.id);
    const b = await boundPatient(patients.b!.id);
    const forms = await patientCall(a, 'GET', '/api/ignore/patient/forms');
    expect(forms.body.data).toEqual([expect.objectContaining({ crfId: vitals(), title: '生命体征', state: 0 })]);

    const cases: Array<[string, string | null, string, string, unknown, number]> = [
      ['no token', null, 'GET', '/api/ignore/patient/forms', undefined, 401],
      ['a forged token', `${studyId}.${'x'.repeat(43)}`, 'GET', '/api/ignore/patient/forms', undefined, 401],
      ['a staff token', nurse, 'GET', '/api/ignore/patient/forms', undefined, 401],
      ['an assigned form', a, 'GET', `/api/ignore/patient/forms/${vitals()}`, undefined, 200],
      ['a form not patient-reported', a, 'GET', `/api/ignore/patient/forms/${demographics()}`, undefined, 403],
      ['a form of no study', a, 'GET', '/api/ignore/patient/forms/999999', undefined, 403],
      [
        'saving a form not patient-reported',
        a,
        'POST',
        `/api/ignore/patient/forms/${demographics()}`,
        { values: {}, submit: false },
        403,
      ],
    ];
    for (const [what, token, method, url, body, status] of cases) {
      expect((await patientCall(token, method, url, body)).status, what).toBe(status);
    }
    // A patient token opens no staff route.
    const staff = await t.app.inject({
      method: 'GET',
      url: `/api/business/wechat/users?studyId=${studyId}`,
      headers: { authorization: `Bearer ${a}` },
    });
    expect(staff.statusCode).toBe(401);

    // Patient A saves; patient B's form stays empty: the record is the session's, never named by the request.
    const saved = await patientCall(a, 'POST', `/api/ignore/patient/forms/${vitals()}`, {
      values: { sbp: 128, dbp: 82 },
      submit: false,
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const bForm = await patientCall(b, 'GET', `/api/ignore/patient/forms/${vitals()}`);
    expect(bForm.body.data.record).toBeNull();
    const aForm = await patientCall(a, 'GET', `/api/ignore/patient/forms/${vitals()}`);
    expect(aForm.body.data.record.values).toMatchObject({ sbp: '128', dbp: '82' });
    const [row] = await t.db
      .select()
      .from(crfDataRecords)
      .where(eq(crfDataRecords.id, saved.body.data.crfDataRecordId as number));
    expect(row!.subjectRecordId).toBe(patients.a!.subjectRecordId);

    // Unbinding ends the patient's session at once.
    const unbound = await t.call(nurse, 'POST', '/api/business/wechat/unbind', { studyId, subjectId: patients.b!.id });
    expect(unbound.status, JSON.stringify(unbound.body)).toBe(200);
    expect((await patientCall(b, 'GET', '/api/ignore/patient/forms')).status).toBe(401);
    const [subjectB] = await t.db.select().from(subjects).where(eq(subjects.id, patients.b!.id));
    expect(subjectB!.openId).toBeNull();
  });

  it('KNOW-03: a patient-reported save goes through the form rules and is audited with the patient as author (患者填写)', async () => {
    const a = await boundPatient(patients.a!.id);
    const form = (await patientCall(a, 'GET', `/api/ignore/patient/forms/${vitals()}`)).body.data;
    const record = form.record as { crfDataRecordId: number; version: number };

    // The engine on the server: the check 收缩压应大于舒张压 refuses, as on the staff page.
    const refused = await patientCall(a, 'POST', `/api/ignore/patient/forms/${vitals()}`, {
      values: { sbp: 80, dbp: 90 },
      submit: true,
      crfDataRecordId: record.crfDataRecordId,
      version: record.version,
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body.data)).toContain('收缩压应大于舒张压');

    // A stale version is refused.
    const stale = await patientCall(a, 'POST', `/api/ignore/patient/forms/${vitals()}`, {
      values: { sbp: 130, dbp: 80 },
      submit: true,
      crfDataRecordId: record.crfDataRecordId,
      version: record.version + 5,
    });
    expect(stale.status).toBe(409);

    const submitted = await patientCall(a, 'POST', `/api/ignore/patient/forms/${vitals()}`, {
      values: { sbp: 130, dbp: 80 },
      submit: true,
      crfDataRecordId: record.crfDataRecordId,
      version: record.version,
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    expect(submitted.body.data.state).toBe(2);

    // Submitted: closed to the patient.
    const again = await patientCall(a, 'POST', `/api/ignore/patient/forms/${vitals()}`, {
      values: { sbp: 131, dbp: 80 },
      submit: true,
      crfDataRecordId: record.crfDataRecordId,
      version: submitted.body.data.version,
    });
    expect(again.status).toBe(409);
    expect(again.body.msg).toBe('表单已提交，不能再修改');

    // Staff read the values and the trail: the patient is the author.
    const trail = await t.call(nurse, 'GET', `/api/business/crf/audit?crfDataRecordId=${record.crfDataRecordId}`);
    expect(trail.status, JSON.stringify(trail.body)).toBe(200);
    const rows = await t.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.crfDataRecordId, record.crfDataRecordId))
      .orderBy(asc(auditEvents.id));
    const sbp = rows.filter((r) => r.itemName === 'sbp');
    expect(sbp.map((r) => [r.oldValue, r.newValue])).toEqual([
      [null, 128],
      [128, 130],
    ]);
    expect(rows.every((r) => r.userName === `患者填写(${patients.a!.identificationCode})`)).toBe(true);
    expect(rows.map((r) => r.action)).toEqual(expect.arrayContaining(['crf.create', 'item.update', 'crf.submit']));
    expect(JSON.stringify(trail.body.data)).toContain('患者填写');
    const detail = await t.call(
      nurse,
      'GET',
      `/api/v3/business/crf/${patients.a!.subjectRecordId}?crfId=${vitals()}&crfDataRecordId=${record.crfDataRecordId}`,
    );
    expect(detail.status, JSON.stringify(detail.body)).toBe(200);
    expect(detail.body.data.crfDataRecord.values).toMatchObject({ sbp: '130', dbp: '80' });
  });
  it('KNOW-03: a patient-reported form named by a due follow-up visit is filled for that visit: a new record, linked to the visit', async () => {
    const followUp = crfIds['术后随访']!;
    const saved = await t.call(admin, 'PUT', '/api/business/wechat/settings', {
      studyId,
      bindEnabled: true,
      proCrfIds: [vitals(), followUp],
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const today = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Asia/Shanghai' }).format(t.clock());
    const a = await boundPatient(patients.a!.id);
    // Before any visit: the form is the patient's, on no visit.
    const before = (await patientCall(a, 'GET', '/api/ignore/patient/forms')).body.data;
    expect(before.find((f: { crfId: number }) => f.crfId === followUp)).toMatchObject({ visitName: null, state: 0 });

    const visit = await t.call(admin, 'PUT', '/api/business/subject/follow/custom', {
      subjectRecordId: patients.a!.subjectRecordId,
      visitName: '居家随访',
      plannedDate: today,
      windowBefore: 0,
      windowAfter: 7,
      crfIds: [followUp],
    });
    expect(visit.status, JSON.stringify(visit.body)).toBe(200);
    const listed = (await patientCall(a, 'GET', '/api/ignore/patient/forms')).body.data;
    expect(listed.find((f: { crfId: number }) => f.crfId === followUp)).toMatchObject({
      visitName: '居家随访',
      state: 0,
    });
    const form = (await patientCall(a, 'GET', `/api/ignore/patient/forms/${followUp}`)).body.data;
    expect(form.visit).toMatchObject({ visitName: '居家随访', plannedDate: today });
    expect(form.record).toBeNull();

    const submitted = await patientCall(a, 'POST', `/api/ignore/patient/forms/${followUp}`, {
      values: { fu_date: today },
      submit: true,
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    const [slot] = await t.db.select().from(followRecordCrfs).where(eq(followRecordCrfs.crfId, followUp));
    expect(slot!.crfDataRecordId).toBe(submitted.body.data.crfDataRecordId);
    // The visit's slot is filled: no open visit, the submitted record shown.
    const after = (await patientCall(a, 'GET', '/api/ignore/patient/forms')).body.data;
    expect(after.find((f: { crfId: number }) => f.crfId === followUp)).toMatchObject({ visitName: null, state: 2 });
  });
  it('KNOW-03: 公众号病种 keeps one education text per study disease; settings changes are audited; a closed study refuses binding', async () => {
    const notes = await t.call(nurse, 'GET', `/api/business/wechat/disease?studyId=${studyId}`);
    expect(notes.status).toBe(200);
    expect(notes.body.data.map((d: { diseaseCode: string }) => d.diseaseCode)).toContain('LSS');
    expect(
      (
        await t.call(nurse, 'PUT', '/api/business/wechat/disease', {
          studyId,
          diseaseCode: 'LSS',
          title: 'x',
          content: '',
        })
      ).status,
    ).toBe(403);
    const unknown = await t.call(admin, 'PUT', '/api/business/wechat/disease', {
      studyId,
      diseaseCode: 'NOPE',
      title: '须知',
      content: '',
    });
    expect(unknown.status).toBe(404);
    for (const title of ['术后须知', '术后康复须知']) {
      const saved = await t.call(admin, 'PUT', '/api/business/wechat/disease', {
        studyId,
        diseaseCode: 'LSS',
        title,
        content: '三个月内避免弯腰搬重物。',
      });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    }
    const lss = (await t.call(admin, 'GET', `/api/business/wechat/disease?studyId=${studyId}`)).body.data.filter(
      (d: { diseaseCode: string }) => d.diseaseCode === 'LSS',
    );
    expect(lss).toEqual([expect.objectContaining({ title: '术后康复须知', content: '三个月内避免弯腰搬重物。' })]);
    const a = await boundPatient(patients.a!.id);
    const issuedBeforeClosing = (await issue(patients.b!.id)).body.data.code as string;
    expect((await patientCall(a, 'GET', '/api/ignore/patient/home')).body.data.disease).toEqual({
      title: '术后康复须知',
      content: '三个月内避免弯腰搬重物。',
    });

    const badAppId = await t.call(admin, 'PUT', '/api/business/wechat/settings', {
      studyId,
      bindEnabled: false,
      appId: 'not-an-app-id',
      proCrfIds: [],
    });
    expect(badAppId.status).toBe(400);
    const closed = await t.call(admin, 'PUT', '/api/business/wechat/settings', {
      studyId,
      bindEnabled: false,
      appId: 'wx0123456789abcdef',
      proCrfIds: [vitals()],
    });
    expect(closed.status, JSON.stringify(closed.body)).toBe(200);
    const audited = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, studyId), eq(auditEvents.action, 'patient.settings')))
      .orderBy(asc(auditEvents.id));
    expect(audited.at(-1)!.newValue).toMatchObject({ bindEnabled: false, appId: 'wx0123456789abcdef' });
    expect((await issue(patients.b!.id)).status).toBe(403);
    // Closed binding is told only to a live code of the study, which stays unspent; a wrong code hears what it
    // hears in any study.
    const closedToCode = await bindWith(issuedBeforeClosing);
    expect(closedToCode.body).toEqual({ code: 403, msg: '该项目未开放患者绑定', data: null });
    expect((await bindWith('WRONGONE')).body.msg).toBe('绑定码无效或已过期');
    const unspent = await t.db
      .select()
      .from(patientBindCodes)
      .where(
        and(
          eq(patientBindCodes.subjectId, patients.b!.id),
          isNull(patientBindCodes.usedAt),
          isNull(patientBindCodes.revokedAt),
        ),
      );
    expect(unspent).toHaveLength(1);
  });

  it("the public side tells no study's name by its id: only binding with a live code of the study answers it", async () => {
    for (const id of [studyId, otherStudyId, 999999]) {
      const byId = await patientCall(null, 'GET', `/api/ignore/patient/study/${id}`);
      expect(byId.status).toBe(404);
      expect(JSON.stringify(byId.body)).not.toMatch(/腰椎管狭窄症|另一项研究/);
    }
    // A wrong code answers alike for the demo study, another study and no study at all.
    const answers = await Promise.all(
      [studyId, otherStudyId, 999999].map(async (id) => (await bindWith('ABCDEFGH', id)).body),
    );
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(answers[0]).toEqual({ code: 400, msg: '绑定码无效或已过期', data: null });
    const reopened = await t.call(admin, 'PUT', '/api/business/wechat/settings', {
      studyId,
      bindEnabled: true,
      proCrfIds: [vitals()],
    });
    expect(reopened.status, JSON.stringify(reopened.body)).toBe(200);
    const code = (await issue(patients.a!.id)).body.data.code as string;
    const bound = await bindWith(code);
    expect(bound.status, JSON.stringify(bound.body)).toBe(200);
    expect(bound.body.data.studyName).toBe('腰椎管狭窄症手术登记研究（示例）');
  });
});
