import { execFileSync } from 'node:child_process';
import { and, asc, eq } from 'drizzle-orm';
import { allStudyPermissionKeys, buttonKey, maskName } from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, calendarEvents, saeReports } from '../../db/schema/index.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { openTwoSiteStudy, type TwoSiteStudy } from '../../test/two-sites.js';

/**
 * SAE reports printed and exported (issue 37): the NMPA 严重不良事件报告表 as Word and PDF, the CIOMS-I-like English
 * form, each export audited, guarded like the other safety routes; and the deadline in the calendars of the
 * members holding 安全性报告.
 */
let t: TestApp;
let s: TwoSiteStudy;
let aeCrfId: number;
let reportId: number;

const HOUR = 3600_000;
const awareAt = new Date('2026-11-22T06:00:00Z');
const exportUrl = (format: string, id = reportId) =>
  `/api/business/safety/report/export?studyId=${s.studyId}&reportId=${id}&format=${format}`;
const get = (token: string, url: string) =>
  t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

/** The text of a Word document's body, tags and all. */
async function documentText(data: Buffer) {
  const PizZip = (await import('pizzip')).default;
  return new PizZip(data).file('word/document.xml')!.asText();
}

beforeAll(async () => {
  t = await createTestApp();
  s = await openTwoSiteStudy(t);
  const on = await t.call(s.admin, 'PUT', '/api/business/safety/module', { studyId: s.studyId, enabled: true });
  aeCrfId = on.body.data.aeCrfId;
  const saved = await t.call(s.admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId: s.patientA.subjectRecordId,
    crfId: aeCrfId,
    version: 0,
    values: {
      ae_term: '重症肺炎',
      ae_start: '2026-11-20',
      ae_grade: '3',
      ae_causality: 'possible',
      ae_action: 'interrupted',
      ae_outcome: 'recovering',
      ae_serious: '1',
      ae_criteria: ['hosp', 'life'],
      // The study's zone (Asia/Shanghai) wall clock of awareAt.
      ae_aware: '2026-11-22 14:00',
    },
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  await t.ctx.events.drain();
  const [report] = await t.db.select().from(saeReports);
  reportId = report!.id;
});
afterAll(() => t.close());

describe('SAE report export', () => {
  it('safety export: 导出Word gives the NMPA 严重不良事件报告表 filled from the report, the patient by code and masked name, blanks left blank; audited', async () => {
    const res = await get(s.nurseA.token, exportUrl('docx'));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toContain('wordprocessingml');
    expect(decodeURIComponent(String(res.headers['content-disposition']))).toContain('严重不良事件报告表-');
    const text = await documentText(res.rawPayload);
    for (const expected of [
      '严重不良事件报告表',
      'SAE的医学术语（诊断）',
      '重症肺炎',
      '☑首次报告',
      '☐随访报告',
      '☑导致住院/延长住院时间',
      '☑危及生命',
      '☐死亡',
      '2026-11-20',
      '2026-11-22 14:00',
      '☑暂停用药',
      '☑好转',
      '☑可能有关',
      '甲中心',
      maskName('甲院患者'),
      s.patientA.identificationCode,
      '报告人签名',
    ]) {
      expect(text).toContain(expected);
    }
    // The name never prints in clear, even for a caller who may see it; no tag is left unfilled.
    expect(text).not.toContain('甲院患者');
    expect(text).not.toMatch(/\{[a-zA-Z]+\}/);
    const audits = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, s.studyId), eq(auditEvents.action, 'sae.export')))
      .orderBy(asc(auditEvents.id));
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({
      userId: s.nurseA.userId,
      itemName: `sae:${reportId}`,
      subjectRecordId: s.patientA.subjectRecordId,
      crfId: aeCrfId,
    });
    expect(audits[0]!.newValue).toEqual({ version: 1, format: 'docx' });
  });

  it('safety export: 导出CIOMS gives the CIOMS-I-like form, English labels, values as stored', async () => {
    const res = await get(s.monitor.token, exportUrl('cioms'));
    expect(res.statusCode, res.body).toBe(200);
    expect(decodeURIComponent(String(res.headers['content-disposition']))).toContain('CIOMS-');
    const text = await documentText(res.rawPayload);
    for (const expected of [
      'SUSPECT ADVERSE REACTION REPORT',
      '1. Patient initials',
      maskName('甲院患者'),
      '4–6. Reaction onset',
      '2026-11-20',
      '☑ Involved or prolonged inpatient hospitalisation',
      '☑ Life threatening',
      '☐ Patient died',
      '重症肺炎',
      'Investigator causality: 可能有关',
      '14. Suspect drug(s)',
      '☑ Initial',
      '☐ Follow-up',
    ]) {
      expect(text).toContain(expected);
    }
    expect(text).not.toContain('甲院患者');
  });

  it('safety export: a submitted version prints what was sent and its report time; a follow-up prints as 随访报告', async () => {
    t.clock.advance(2 * HOUR);
    // Tokens expire in the hours that pass: the members sign in again.
    for (const [member, userName] of [
      [s.nurseA, '13700000001'],
      [s.nurseB, '13700000002'],
      [s.monitor, '13700000003'],
    ] as const) {
      member.token = (await t.login(userName, 'Passw0rd')).token;
    }
    s.admin = (await t.login()).token;
    const submitted = await t.call(s.nurseA.token, 'POST', '/api/business/safety/sae/submit', {
      studyId: s.studyId,
      saeReportId: reportId,
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    const sent = await documentText((await get(s.nurseA.token, exportUrl('docx'))).rawPayload);
    const shanghai = new Date(t.clock().getTime() + 8 * HOUR).toISOString().slice(0, 16).replace('T', ' ');
    expect(sent).toContain(shanghai);
    const followup = await t.call(s.nurseA.token, 'POST', '/api/business/safety/sae/followup', {
      studyId: s.studyId,
      saeReportId: reportId,
    });
    expect(followup.status, JSON.stringify(followup.body)).toBe(200);
    const second = await documentText(
      (await get(s.nurseA.token, exportUrl('docx', followup.body.data.saeReportId))).rawPayload,
    );
    expect(second).toContain('☑随访报告');
    expect(second).toContain('第2版');
  });

  it('safety export: another site’s member gets 404; without 安全性报告 403; nothing audited', async () => {
    const before = await t.db.select().from(auditEvents).where(eq(auditEvents.action, 'sae.export'));
    expect((await get(s.nurseB.token, exportUrl('docx'))).statusCode).toBe(404);
    const keys = allStudyPermissionKeys([aeCrfId, ...Object.values(s.crfIds)]).filter(
      (k) => k !== buttonKey('business.safety'),
    );
    const token = await addStudyMember(t, s.admin, s.studyId, '13700000029', { permissions: keys });
    expect((await get(token, exportUrl('cioms'))).statusCode).toBe(403);
    const after = await t.db.select().from(auditEvents).where(eq(auditEvents.action, 'sae.export'));
    expect(after).toHaveLength(before.length);
  });

  const hasLibreOffice = (() => {
    try {
      execFileSync('soffice', ['--version'], { stdio: 'ignore', timeout: 30_000 });
      return true;
    } catch {
      return false;
    }
  })();

  it.skipIf(!hasLibreOffice)('safety export: 导出PDF is the same form converted by LibreOffice', async () => {
    const res = await get(s.nurseA.token, exportUrl('pdf'));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.rawPayload.subarray(0, 4).toString()).toBe('%PDF');
  });

  it.skipIf(hasLibreOffice)(
    'safety export: without LibreOffice 导出PDF answers a Chinese message, not audited',
    async () => {
      const before = await t.db.select().from(auditEvents).where(eq(auditEvents.action, 'sae.export'));
      const res = await get(s.nurseA.token, exportUrl('pdf'));
      expect(res.statusCode).toBe(400);
      expect(res.json().msg).toContain('LibreOffice');
      const after = await t.db.select().from(auditEvents).where(eq(auditEvents.action, 'sae.export'));
      expect(after).toHaveLength(before.length);
    },
  );
});

describe('the SAE deadline in the calendar', () => {
  it('safety calendar: the 安全性报告 holders of the patient’s site find the deadline in their calendar, another site’s member does not', async () => {
    const entries = await t.db
      .select()
      .from(calendarEvents)
      .where(eq(calendarEvents.studyId, s.studyId))
      .orderBy(asc(calendarEvents.id));
    const first = entries.filter((e) => e.title === `SAE报告截止：${s.patientA.identificationCode}`);
    const owners = first.map((e) => e.ownerId);
    expect(owners).toContain(s.nurseA.userId);
    expect(owners).toContain(s.monitor.userId);
    expect(owners).not.toContain(s.nurseB.userId);
    expect(first[0]!.startAt.toISOString()).toBe(new Date(awareAt.getTime() + 24 * HOUR).toISOString());
    expect(first[0]!.remindAt!.toISOString()).toBe(new Date(awareAt.getTime() + 22 * HOUR).toISOString());
    // The follow-up's clock started at its creation: a second entry, titled as a follow-up.
    const followups = entries.filter((e) => e.title === `SAE随访报告截止：${s.patientA.identificationCode}`);
    expect(followups.map((e) => e.ownerId)).toContain(s.nurseA.userId);

    const listed = await t.call(
      s.nurseA.token,
      'GET',
      `/api/business/events?studyId=${s.studyId}&startDate=2026-11-23&endDate=2026-11-23&pageNum=1&pageSize=20`,
    );
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.data.list).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          title: `SAE报告截止：${s.patientA.identificationCode}`,
          subject: expect.objectContaining({ identificationCode: s.patientA.identificationCode }),
        }),
      ]),
    );
    const other = await t.call(
      s.nurseB.token,
      'GET',
      `/api/business/events?studyId=${s.studyId}&startDate=2026-11-23&endDate=2026-11-23&pageNum=1&pageSize=20`,
    );
    expect(other.body.data.total).toBe(0);
  });

  it('safety calendar: a moved awareness time moves the entries; 否 removes them; 是 again puts them back', async () => {
    const title = `SAE报告截止：${s.patientA.identificationCode}`;
    const at = (iso: string) =>
      t.db
        .select()
        .from(calendarEvents)
        .where(and(eq(calendarEvents.title, title), eq(calendarEvents.startAt, new Date(iso))));
    let version = 0;
    let recordId: number | undefined;
    const save = async (values: object) => {
      const res = await t.call(s.admin, 'PUT', '/api/v3/business/crf', {
        subjectRecordId: s.patientA.subjectRecordId,
        crfId: aeCrfId,
        version,
        ...(recordId ? { crfDataRecordId: recordId } : {}),
        values: { ae_term: '发热', ae_start: '2026-11-21', ae_grade: '3', ae_causality: 'possible', ...values },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      await t.ctx.events.drain();
      recordId = res.body.data.crfDataRecordId;
      version = res.body.data.version;
    };
    const serious = (aware: string) => ({ ae_serious: '1', ae_criteria: ['other'], ae_aware: aware });

    await save(serious('2026-11-22 10:00'));
    const made = await at('2026-11-23T02:00:00.000Z');
    const owners = made.map((e) => e.ownerId).sort();
    expect(owners).toEqual(expect.arrayContaining([s.nurseA.userId, s.monitor.userId]));
    expect(owners).not.toContain(s.nurseB.userId);

    await save(serious('2026-11-22 11:00'));
    expect(await at('2026-11-23T02:00:00.000Z')).toEqual([]);
    const moved = await at('2026-11-23T03:00:00.000Z');
    expect(moved.map((e) => e.id).sort()).toEqual(made.map((e) => e.id).sort());
    expect(moved[0]!.remindAt!.toISOString()).toBe('2026-11-23T01:00:00.000Z');

    await save({ ae_serious: '0' });
    expect(await at('2026-11-23T03:00:00.000Z')).toEqual([]);

    await save(serious('2026-11-22 11:00'));
    expect((await at('2026-11-23T03:00:00.000Z')).map((e) => e.ownerId).sort()).toEqual(owners);
  });
});
