import crypto from 'node:crypto';
import ExcelJS from 'exceljs';
import { and, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  calendarEvents,
  consultations,
  medicalRecords,
  randomizationUnblindings,
  randomizations,
  recognitions,
  subjectRecords,
} from '../../db/schema/index.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { openTwoSiteStudy, type TwoSiteStudy } from '../../test/two-sites.js';

/**
 * Site scope (分中心) in follow-up, calendar, randomization, 在线咨询, 病历资料, recognition and the patient side's
 * staff pages: nurseB (乙中心) never sees or touches patientA (甲中心, '甲院患者'); nurseA and the monitor do.
 */

let t: TestApp;
let s: TwoSiteStudy;
let subjectA: number;
let subjectB: number;

const NAME_A = '甲院患者';
const NAME_B = '乙院患者';
const text = (v: unknown) => JSON.stringify(v);

async function subjectIdOf(subjectRecordId: number) {
  const [row] = await t.db
    .select({ subjectId: subjectRecords.subjectId })
    .from(subjectRecords)
    .where(eq(subjectRecords.id, subjectRecordId));
  return row!.subjectId;
}

const expectNotInScope = (res: { status: number; body: { msg: string } }) => {
  expect(res.status, text(res.body)).toBe(404);
  expect(res.body.msg).toBe('患者不存在');
};

beforeAll(async () => {
  t = await createTestApp();
  s = await openTwoSiteStudy(t);
  subjectA = await subjectIdOf(s.patientA.subjectRecordId);
  subjectB = await subjectIdOf(s.patientB.subjectRecordId);
});
afterAll(() => t.close());

describe('follow-up (随访) by site', () => {
  const visitOf: Record<'A' | 'B', { followRecordId: number; followRecordCrfId: number }> = {} as never;

  beforeAll(async () => {
    for (const [key, patient] of [
      ['A', s.patientA],
      ['B', s.patientB],
    ] as const) {
      const res = await t.call(s.admin, 'PUT', '/api/business/subject/follow/custom', {
        subjectRecordId: patient.subjectRecordId,
        visitName: `${key}院复查`,
        // The test clock's today (2026-11-22, Shanghai): in the overview's week.
        plannedDate: '2026-11-22',
        crfIds: [s.crfIds['术后随访']],
      });
      expect(res.status, text(res.body)).toBe(200);
      const visits = await t.call(
        s.admin,
        'GET',
        `/api/business/subject/follows?subjectRecordId=${patient.subjectRecordId}`,
      );
      const v = visits.body.data.find((x: { visitName: string }) => x.visitName === `${key}院复查`);
      visitOf[key] = { followRecordId: v.followRecordId, followRecordCrfId: v.crfs[0].followRecordCrfId };
    }
  });

  it('FOLLOW-08: the record list holds only the caller’s sites’ patients; the monitor sees both', async () => {
    const url = `/api/business/follow/records?studyId=${s.studyId}&pageNum=1&pageSize=100`;
    const b = await t.call(s.nurseB.token, 'GET', url);
    expect(b.status).toBe(200);
    expect(text(b.body.data.list)).toContain(NAME_B);
    expect(text(b.body.data.list)).not.toContain(NAME_A);
    expect(b.body.data.list.every((r: { subjectId: number }) => r.subjectId === subjectB)).toBe(true);
    const a = await t.call(s.nurseA.token, 'GET', url);
    expect(text(a.body.data.list)).toContain(NAME_A);
    expect(text(a.body.data.list)).not.toContain(NAME_B);
    const m = await t.call(s.monitor.token, 'GET', url);
    expect(m.body.data.total).toBe(a.body.data.total + b.body.data.total);
    // Asking for the other site's patient by name is the guard's 404.
    expectNotInScope(await t.call(s.nurseB.token, 'GET', `${url}&subjectRecordId=${s.patientA.subjectRecordId}`));
  });

  it('the overview counts and lists only the caller’s sites’ visits', async () => {
    const url = `/api/business/follow/overview?studyId=${s.studyId}`;
    const [a, b, m] = await Promise.all(
      [s.nurseA, s.nurseB, s.monitor].map(async (who) => (await t.call(who.token, 'GET', url)).body.data),
    );
    expect(text(b.weekVisits)).toContain(NAME_B);
    expect(text(b.weekVisits)).not.toContain(NAME_A);
    expect(text(a.weekVisits)).not.toContain(NAME_B);
    expect(text(m.weekVisits)).toContain(NAME_A);
    expect(text(m.weekVisits)).toContain(NAME_B);
    expect(b.thisWeek.total).toBeGreaterThan(0);
    expect(m.thisWeek.total).toBe(a.thisWeek.total + b.thisWeek.total);
    const visitsTotal = (o: { visits: { total: number }[] }) => o.visits.reduce((n, v) => n + v.total, 0);
    expect(visitsTotal(m)).toBe(visitsTotal(a) + visitsTotal(b));
  });

  it('FOLLOW-12/13/14/15: another site’s patient’s visits answer 404 and are not changed', async () => {
    const { followRecordId, followRecordCrfId } = visitOf.A;
    const B = s.nurseB.token;
    expectNotInScope(
      await t.call(B, 'GET', `/api/business/subject/follows?subjectRecordId=${s.patientA.subjectRecordId}`),
    );
    expectNotInScope(await t.call(B, 'GET', `/api/business/subject/follow/crfs?followRecordId=${followRecordId}`));
    expectNotInScope(
      await t.call(B, 'GET', `/api/v2/business/subject/follow/crf?followRecordCrfId=${followRecordCrfId}`),
    );
    expectNotInScope(
      await t.call(B, 'PUT', '/api/business/follow/record/status', { followRecordId, action: 'lost', reason: '失联' }),
    );
    expectNotInScope(
      await t.call(B, 'PUT', '/api/business/subject/follow/record', {
        followRecordId,
        plannedDate: '2026-12-01',
        reason: '改期',
      }),
    );
    expectNotInScope(
      await t.call(B, 'DELETE', `/api/business/subject/follow/record?followRecordId=${followRecordId}&reason=x`),
    );
    const own = await t.call(
      s.nurseA.token,
      'GET',
      `/api/business/subject/follow/crfs?followRecordId=${followRecordId}`,
    );
    expect(own.status).toBe(200);
    const after = await t.call(
      s.nurseA.token,
      'GET',
      `/api/business/subject/follows?subjectRecordId=${s.patientA.subjectRecordId}`,
    );
    const v = after.body.data.find((x: { followRecordId: number }) => x.followRecordId === followRecordId);
    expect(v).toMatchObject({ plannedDate: '2026-11-22', markReason: null });
  });
});

describe('calendar (日历) by site', () => {
  const event = (extra: object) => ({
    studyId: s.studyId,
    title: '复诊',
    allDay: false,
    startTime: '2026-11-23T09:00:00+08:00',
    endTime: '2026-11-23T10:00:00+08:00',
    ...extra,
  });

  it('FOLLOW-16: an event cannot be linked to another site’s patient', async () => {
    expectNotInScope(await t.call(s.nurseB.token, 'POST', '/api/business/events', event({ subjectId: subjectA })));
    const own = await t.call(s.nurseA.token, 'POST', '/api/business/events', event({ subjectId: subjectA }));
    expect(own.status, text(own.body)).toBe(200);
    expect(own.body.data.subject.subjectName).toBe(NAME_A);
  });

  it('an event left linked to a patient now at another site keeps its owner’s text but no longer names the patient', async () => {
    const at = new Date('2026-11-23T01:00:00Z');
    const [row] = await t.db
      .insert(calendarEvents)
      .values({
        studyId: s.studyId,
        ownerId: s.nurseB.userId,
        title: '旧日程',
        startAt: at,
        endAt: new Date(at.getTime() + 3_600_000),
        subjectId: subjectA,
      })
      .returning();
    const listed = await t.call(
      s.nurseB.token,
      'GET',
      `/api/business/events?studyId=${s.studyId}&startDate=2026-11-23&endDate=2026-11-23&pageNum=1&pageSize=10`,
    );
    expect(listed.status).toBe(200);
    const mine = listed.body.data.list.find((e: { id: number }) => e.id === row!.id);
    expect(mine).toMatchObject({ title: '旧日程', subjectId: null, subject: null });
    expect(text(listed.body)).not.toContain(NAME_A);
    const one = await t.call(s.nurseB.token, 'GET', `/api/business/events/${row!.id}?studyId=${s.studyId}`);
    expect(one.body.data).toMatchObject({ subjectId: null, subject: null });
  });
});

describe('randomization (随机化) by site', () => {
  const BASE = '/api/business/randomization';
  const config = {
    method: 'block',
    arms: [
      { code: 'A', label: '试验组', ratio: 1 },
      { code: 'B', label: '对照组', ratio: 1 },
    ],
    blinded: true,
    blockSizes: [4],
    listLength: 40,
    factors: [],
  };

  beforeAll(async () => {
    const saved = await t.call(s.admin, 'POST', BASE, { studyId: s.studyId, config });
    expect(saved.status, text(saved.body)).toBe(200);
  });

  it('RAND-05: randomizing another site’s patient answers 404 and assigns nothing; each nurse randomizes her own', async () => {
    expectNotInScope(
      await t.call(s.nurseB.token, 'POST', `${BASE}/subject`, { studyId: s.studyId, subjectId: subjectA }),
    );
    expect(await t.db.select().from(randomizations).where(eq(randomizations.subjectId, subjectA))).toHaveLength(0);
    for (const [who, subjectId] of [
      [s.nurseA, subjectA],
      [s.nurseB, subjectB],
    ] as const) {
      const res = await t.call(who.token, 'POST', `${BASE}/subject`, { studyId: s.studyId, subjectId });
      expect(res.status, text(res.body)).toBe(200);
    }
    expectNotInScope(await t.call(s.nurseB.token, 'GET', `${BASE}/subject?studyId=${s.studyId}&subjectId=${subjectA}`));
  });

  it('RAND-04: the results and the counts hold only the caller’s sites’ patients; the monitor’s hold both', async () => {
    const list = async (token: string) =>
      (await t.call(token, 'GET', `${BASE}/randomly_selected?studyId=${s.studyId}&pageNum=1&pageSize=50`)).body.data;
    const b = await list(s.nurseB.token);
    expect(b.total).toBe(1);
    expect(text(b.list)).toContain(NAME_B);
    expect(text(b.list)).not.toContain(NAME_A);
    expect(text(b.list)).not.toContain(s.patientA.identificationCode);
    expect((await list(s.monitor.token)).total).toBe(2);
    const counts = async (token: string) =>
      (await t.call(token, 'GET', `${BASE}/result?studyId=${s.studyId}`)).body.data;
    expect((await counts(s.nurseB.token)).total).toBe(1);
    expect((await counts(s.monitor.token)).total).toBe(2);
  });

  it('RAND-04: the allocation list stays whole but names only the caller’s sites’ patients', async () => {
    const slots = async (token: string) =>
      (await t.call(token, 'GET', `${BASE}/list/config?studyId=${s.studyId}&pageNum=1&pageSize=100`)).body.data;
    const b = await slots(s.nurseB.token);
    const m = await slots(s.monitor.token);
    expect(b.total).toBe(m.total);
    const used = (d: { list: { used: boolean; subjectId: number | null }[] }) => d.list.filter((x) => x.used);
    expect(used(b)).toHaveLength(2);
    expect(used(b).map((x) => x.subjectId)).toEqual(expect.arrayContaining([subjectB, null]));
    expect(
      used(m)
        .map((x) => x.subjectId)
        .sort(),
    ).toEqual([subjectA, subjectB].sort());
    const file = await t.app.inject({
      method: 'POST',
      url: `${BASE}/export`,
      headers: { authorization: `Bearer ${s.nurseB.token}` },
      payload: { studyId: s.studyId },
    });
    expect(file.statusCode).toBe(200);
  });

  it('RAND-07: the results export leaves out the other site’s patients', async () => {
    const exported = async (token: string) => {
      const res = await t.app.inject({
        method: 'POST',
        url: `${BASE}/export/randomly_selected`,
        headers: { authorization: `Bearer ${token}` },
        payload: { studyId: s.studyId },
      });
      expect(res.statusCode).toBe(200);
      const book = new ExcelJS.Workbook();
      await book.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
      const sheet = book.getWorksheet('随机结果')!;
      return { rows: sheet.rowCount - 1, cells: text(sheet.getSheetValues()) };
    };
    const b = await exported(s.nurseB.token);
    expect(b.rows).toBe(1);
    expect(b.cells).toContain(NAME_B);
    expect(b.cells).not.toContain(NAME_A);
    expect((await exported(s.monitor.token)).rows).toBe(2);
  });

  it('RAND-06: emergency unblinding of another site’s patient answers 404 and records nothing', async () => {
    expectNotInScope(
      await t.call(s.nurseB.token, 'PUT', `${BASE}/unblind`, {
        studyId: s.studyId,
        subjectId: subjectA,
        password: 'whatever',
        reason: '严重不良事件',
      }),
    );
    expect(
      await t.db.select().from(randomizationUnblindings).where(eq(randomizationUnblindings.subjectId, subjectA)),
    ).toHaveLength(0);
  });
});

describe('在线咨询 by site', () => {
  const BASE = '/api/v1/advisory/manager';
  let consultA: number;
  let consultB: number;
  let anonymous: number;

  beforeAll(async () => {
    const ask = async (subjectId: number, title: string) => {
      const res = await t.call(s.admin, 'POST', BASE, { studyId: s.studyId, subjectId, title, question: '能否复查？' });
      expect(res.status, text(res.body)).toBe(200);
      return res.body.data.id as number;
    };
    consultA = await ask(subjectA, '甲院咨询');
    consultB = await ask(subjectB, '乙院咨询');
    const [row] = await t.db
      .insert(consultations)
      .values({ studyId: s.studyId, subjectId: null, source: 'patient', title: '访客咨询', question: '怎样参加？' })
      .returning();
    anonymous = row!.id;
  });

  it('KNOW-05: the list holds the caller’s sites’ questions and those naming no patient', async () => {
    const ids = async (token: string) =>
      (await t.call(token, 'GET', `${BASE}/list?studyId=${s.studyId}&pageNum=1&pageSize=50`)).body.data.list.map(
        (c: { id: number }) => c.id,
      );
    const b = await ids(s.nurseB.token);
    expect(b).toEqual(expect.arrayContaining([consultB, anonymous]));
    expect(b).not.toContain(consultA);
    expect(await ids(s.nurseA.token)).toEqual(expect.arrayContaining([consultA, anonymous]));
    expect(await ids(s.monitor.token)).toEqual(expect.arrayContaining([consultA, consultB, anonymous]));
  });

  it('another site’s question answers 404 to read, answer or close, and stays as it was', async () => {
    const B = s.nurseB.token;
    expectNotInScope(await t.call(B, 'GET', `${BASE}/${consultA}?studyId=${s.studyId}`));
    expectNotInScope(await t.call(B, 'PUT', `${BASE}/${consultA}/answer`, { studyId: s.studyId, answer: '可以' }));
    expectNotInScope(await t.call(B, 'PUT', `${BASE}/${consultA}/close`, { studyId: s.studyId }));
    const [row] = await t.db.select().from(consultations).where(eq(consultations.id, consultA));
    expect(row).toMatchObject({ state: 0, answer: null });
    expect((await t.call(B, 'GET', `${BASE}/${anonymous}?studyId=${s.studyId}`)).status).toBe(200);
    expect((await t.call(s.nurseA.token, 'GET', `${BASE}/${consultA}?studyId=${s.studyId}`)).status).toBe(200);
  });
});

describe('病历资料 by site', () => {
  let recordA: number;

  beforeAll(async () => {
    for (const [subjectId, title] of [
      [subjectA, '甲院出院小结'],
      [subjectB, '乙院出院小结'],
    ] as const) {
      const res = await t.call(s.admin, 'POST', '/api/v1/medical', {
        studyId: s.studyId,
        subjectId,
        title,
        category: '出院小结',
        files: [],
      });
      expect(res.status, text(res.body)).toBe(200);
      if (subjectId === subjectA) recordA = res.body.data.id;
    }
  });

  it('the list holds only the caller’s sites’ patients’ records', async () => {
    const url = `/api/v1/medicals?studyId=${s.studyId}&pageNum=1&pageSize=50`;
    const b = await t.call(s.nurseB.token, 'GET', url);
    expect(text(b.body.data.list)).toContain('乙院出院小结');
    expect(text(b.body.data.list)).not.toContain('甲院出院小结');
    expect(b.body.data.total).toBe(1);
    expect((await t.call(s.monitor.token, 'GET', url)).body.data.total).toBe(2);
  });

  it('another site’s record answers 404 to read, edit, link or delete, and stays as it was', async () => {
    const B = s.nurseB.token;
    const q = `studyId=${s.studyId}`;
    expectNotInScope(await t.call(B, 'GET', `/api/v1/medical/${recordA}?${q}`));
    expectNotInScope(await t.call(B, 'GET', `/api/v1/medical/${recordA}/file?${q}&fileKey=${'0'.repeat(32)}`));
    expectNotInScope(
      await t.call(B, 'PUT', `/api/v1/medical/${recordA}`, {
        studyId: s.studyId,
        // The caller's own patient in the body: the record's patient is what is checked.
        subjectId: subjectB,
        title: '改',
        category: '其他',
        files: [],
        reason: '更正',
      }),
    );
    expectNotInScope(
      await t.call(B, 'PUT', '/api/v1/medical/crf', { studyId: s.studyId, id: recordA, crfDataRecordId: null }),
    );
    expectNotInScope(await t.call(B, 'DELETE', `/api/v1/medical/${recordA}?${q}&reason=错录`));
    const [row] = await t.db
      .select()
      .from(medicalRecords)
      .where(and(eq(medicalRecords.id, recordA), isNull(medicalRecords.deletedAt)));
    expect(row?.title).toBe('甲院出院小结');
    expect((await t.call(s.nurseA.token, 'GET', `/api/v1/medical/${recordA}?${q}`)).status).toBe(200);
  });
});

describe('recognition and the patient side’s staff pages by site', () => {
  it('a recognition made on a patient now at another site answers 404; the sources of her forms too', async () => {
    const recognition = async (subjectRecordId: number) => {
      const [row] = await t.db
        .insert(recognitions)
        .values({
          studyId: s.studyId,
          userId: s.nurseB.userId,
          fileKey: crypto.randomBytes(16).toString('hex'),
          tempIdHash: crypto.randomBytes(32).toString('hex'),
          expiresAt: new Date('2026-11-22T08:10:00Z'),
          usedAt: new Date('2026-11-22T08:01:00Z'),
          subjectRecordId,
          state: 'done',
          rows: [],
        })
        .returning();
      return row!.id;
    };
    const q = `studyId=${s.studyId}`;
    expectNotInScope(
      await t.call(s.nurseB.token, 'GET', `/api/v1/imgrec/${await recognition(s.patientA.subjectRecordId)}?${q}`),
    );
    const own = await t.call(
      s.nurseB.token,
      'GET',
      `/api/v1/imgrec/${await recognition(s.patientB.subjectRecordId)}?${q}`,
    );
    expect(own.status, text(own.body)).toBe(200);
    expectNotInScope(
      await t.call(s.nurseB.token, 'GET', `/api/v1/imgrec/sources?${q}&subjectRecordId=${s.patientA.subjectRecordId}`),
    );
  });

  it('微信用户 lists only the caller’s sites’ patients; a bind code for another site’s patient answers 404', async () => {
    const url = `/api/business/wechat/users?studyId=${s.studyId}&pageNum=1&pageSize=50`;
    const b = await t.call(s.nurseB.token, 'GET', url);
    expect(b.status, text(b.body)).toBe(200);
    expect(text(b.body.data)).toContain(NAME_B);
    expect(text(b.body.data)).not.toContain(NAME_A);
    expect(text((await t.call(s.monitor.token, 'GET', url)).body.data)).toContain(NAME_A);
    expectNotInScope(
      await t.call(s.nurseB.token, 'POST', '/api/business/wechat/bind-code', {
        studyId: s.studyId,
        subjectId: subjectA,
      }),
    );
    expectNotInScope(
      await t.call(s.nurseB.token, 'POST', '/api/business/wechat/unbind', { studyId: s.studyId, subjectId: subjectA }),
    );
  });
});
