import { readdirSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../db/client.js';
import { auditEvents, studyPersonnel, subjectRecords, users } from '../../db/schema/index.js';
import { multipart } from '../../test/multipart.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { openTwoSiteStudy, type TwoSiteStudy } from '../../test/two-sites.js';
import { SITE_MATRIX, type SiteCall, type SiteFixture } from './site-matrix.routes.js';

/**
 * The site matrix (issue 32, docs/multi-centre.md): every route of the OpenAPI document × {same site, other site,
 * all sites}. A site-B nurse naming any of site A's patient's things is answered 404 and writes nothing; her lists
 * and counts never name site A's patient; a site-A nurse is not refused; the monitor (查看全部中心数据) sees both.
 * Runs on PGlite and, with TEST_DATABASE_URL, on PostgreSQL.
 */
let t: TestApp;
let s: TwoSiteStudy;
const f = {} as SiteFixture;
const MARK = '甲院';

beforeAll(async () => {
  t = await createTestApp();
  s = await openTwoSiteStudy(t);
  // The all-sites column: the monitor works at site B, so seeing site A's patient is 查看全部中心数据's doing.
  await t.db.update(users).set({ deptId: s.siteB }).where(eq(users.userId, s.monitor.userId));
  await t.db
    .update(studyPersonnel)
    .set({ deptId: s.siteB })
    .where(and(eq(studyPersonnel.studyId, s.studyId), eq(studyPersonnel.userId, s.monitor.userId)));
  const admin = s.admin;
  const must = async (method: string, url: string, body?: unknown) => {
    const res = await t.call(admin, method, url, body);
    if (res.status !== 200) throw new Error(`${method} ${url}: ${JSON.stringify(res.body)}`);
    return res.body.data;
  };
  f.studyId = s.studyId;
  f.subjectRecordId = s.patientA.subjectRecordId;
  const [rec] = await t.db.select().from(subjectRecords).where(eq(subjectRecords.id, f.subjectRecordId));
  f.subjectId = rec!.subjectId;
  f.crfId = s.crfIds['人口学资料']!;
  f.crfDataRecordId = (
    await must('PUT', '/api/v3/business/crf', {
      subjectRecordId: f.subjectRecordId,
      crfId: f.crfId,
      version: 0,
      values: { history_note: `${MARK}病史标记` },
    })
  ).crfDataRecordId;
  const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
  const form = multipart({ studyId: String(f.studyId) }, [
    { fileName: 'xray.png', data: Buffer.concat([png, Buffer.alloc(64)]), type: 'image/png' },
  ]);
  const upload = await t.app.inject({
    method: 'POST',
    url: `/api/common/file/upload?studyId=${f.studyId}`,
    headers: { ...form.headers, authorization: `Bearer ${admin}` },
    payload: form.payload,
  });
  f.fileKey = upload.json().data.fileKey;
  f.imagingRecordId = (
    await must('PUT', '/api/v3/business/crf', {
      subjectRecordId: f.subjectRecordId,
      crfId: s.crfIds['影像学检查']!,
      version: 0,
      values: {
        xray: [
          {
            dialogImgUrl: `/api/v1/fileupload/downfile?fileKey=${f.fileKey}`,
            uploadTime: '2026-11-22 08:00:00',
            remarks: '',
          },
        ],
      },
    })
  ).crfDataRecordId;
  f.doubtId = (
    await must('POST', `/api/business/doubt/open?studyId=${f.studyId}`, {
      crfDataRecordId: f.crfDataRecordId,
      itemName: 'history_note',
      doubtDescription: '请核实',
    })
  ).doubtId;
  await must('PUT', '/api/business/subject/follow/custom', {
    subjectRecordId: f.subjectRecordId,
    visitName: `${MARK}加访`,
    plannedDate: '2026-12-20',
    crfIds: [f.crfId],
  });
  const visits = await must('GET', `/api/business/subject/follows?subjectRecordId=${f.subjectRecordId}`);
  const visit = (Array.isArray(visits) ? visits : visits.list).find((v: { visitName: string }) =>
    v.visitName.includes(MARK),
  );
  f.followRecordId = visit.followRecordId ?? visit.id;
  const visitCrfs = await must('GET', `/api/business/subject/follow/crfs?followRecordId=${f.followRecordId}`);
  const visitCrf = (Array.isArray(visitCrfs) ? visitCrfs : visitCrfs.list)[0];
  f.followRecordCrfId = visitCrf.followRecordCrfId ?? visitCrf.id;
  f.consultationId = (
    await must('POST', '/api/v1/advisory/manager', {
      studyId: f.studyId,
      subjectId: f.subjectId,
      title: `${MARK}咨询`,
      question: '术后多久复查？',
    })
  ).id;
  f.medicalId = (
    await must('POST', '/api/v1/medical', {
      studyId: f.studyId,
      subjectId: f.subjectId,
      title: `${MARK}病历`,
      category: '其他',
      files: [],
    })
  ).id;
  f.eventId = (
    await must('POST', '/api/business/events', {
      studyId: f.studyId,
      title: `${MARK}复诊`,
      allDay: true,
      startDate: '2026-12-10',
      endDate: '2026-12-10',
      subjectId: f.subjectId,
    })
  ).id;
  await must('PUT', '/api/business/lock', {
    studyId: f.studyId,
    scope: 'subject',
    targetId: f.subjectRecordId,
    locked: true,
    reason: `${MARK}病例核查完毕`,
  });
  const [row] = await t.db
    .select({ id: auditEvents.id })
    .from(auditEvents)
    .where(eq(auditEvents.subjectRecordId, f.subjectRecordId));
  f.auditEventId = row!.id;
});
afterAll(() => t.close());

/** What a refused call must leave as it was: every kind of row a patient-level change writes. */
async function fingerprint() {
  const [row] = await queryRows<Record<string, unknown>>(
    t.db,
    sql`select (select count(*) from audit_events) as audits,
      (select coalesce(sum(version), 0) from crf_data_records) as versions,
      (select count(*) from crf_data_records where deleted_at is null) as records,
      (select count(*) from doubts) as doubts, (select count(*) from doubt_messages) as messages,
      (select count(*) from item_comments) as comments,
      (select count(*) from subjects where deleted_at is null) as subjects,
      (select coalesce(sum(state), 0) from subject_records) as states,
      (select count(*) from follow_records) as visits, (select count(*) from consultations) as consults,
      (select coalesce(sum(state), 0) from consultations) as consult_states,
      (select count(*) from medical_records) as medicals, (select count(*) from calendar_events) as events,
      (select count(*) from signatures) as signatures, (select count(*) from randomizations) as randomized`,
  );
  return JSON.stringify(row);
}

/** A call whose answer may be JSON or a file (the audit CSV). */
async function send(token: string, method: string, call: SiteCall) {
  const res = await t.app.inject({
    method: method as 'GET',
    url: call.url,
    headers: { authorization: `Bearer ${token}` },
    ...(call.body !== undefined && { payload: call.body as object }),
  });
  let body: { code?: number; msg?: string } | undefined;
  try {
    body = res.json();
  } catch {
    body = undefined;
  }
  return { status: res.statusCode, text: res.body, body };
}

const routes = Object.entries(SITE_MATRIX);
const patientRoutes = routes.filter(([, c]) => c.kind === 'patient');
const listRoutes = routes.filter(([, c]) => c.kind === 'list');

describe('site matrix', () => {
  it('every route of the OpenAPI document has a site rule, and every rule a route', () => {
    const doc = t.app.swagger() as unknown as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(
      documented.filter((r) => !(r in SITE_MATRIX)),
      'routes without a site rule',
    ).toEqual([]);
    expect(
      Object.keys(SITE_MATRIX).filter((r) => !documented.includes(r)),
      'rules of no route',
    ).toEqual([]);
    // A rule proven elsewhere names a test file that exists.
    const testFiles = new Set(
      readdirSync(fileURLToPath(new URL('../..', import.meta.url)), { recursive: true }).map((p) =>
        basename(String(p)),
      ),
    );
    const named = Object.values(SITE_MATRIX).flatMap((c) => (c.kind === 'elsewhere' ? [c.test] : []));
    expect(
      named.filter((file) => !testFiles.has(file)),
      'named test files that do not exist',
    ).toEqual([]);
  });

  it.each(patientRoutes)('%s: the other site’s nurse is answered 404 and nothing is written', async (route, c) => {
    if (c.kind !== 'patient') return;
    const method = route.split(' ')[0]!;
    const before = await fingerprint();
    const res = await send(s.nurseB.token, method, c.call(f));
    expect(res.status, res.text.slice(0, 300)).toBe(404);
    expect(await fingerprint()).toBe(before);
  });

  it.each(patientRoutes.filter(([r]) => r.startsWith('GET ')))(
    '%s: the same site’s nurse and the all-sites monitor (at site B) are not refused',
    async (route, c) => {
      if (c.kind !== 'patient') return;
      for (const token of [s.nurseA.token, s.monitor.token]) {
        const res = await send(token, 'GET', c.call(f));
        expect(res.body?.msg, res.text.slice(0, 300)).not.toBe('患者不存在');
        expect(res.status).not.toBe(403);
      }
    },
  );

  it.each(listRoutes)('%s: the other site’s nurse never sees site A’s patient; all sites do', async (route, c) => {
    if (c.kind !== 'list') return;
    const method = route.split(' ')[0]!;
    const codeA = `"${s.patientA.identificationCode}"`;
    const other = await send(s.nurseB.token, method, c.call(f));
    expect(other.status, other.text.slice(0, 300)).toBe(200);
    const otherText = other.text;
    expect(otherText).not.toContain(MARK);
    expect(otherText).not.toContain(codeA);
    if (c.shows) {
      const all = await send(s.monitor.token, method, c.call(f));
      const allText = all.text;
      expect(allText.includes(MARK) || allText.includes(codeA), allText.slice(0, 400)).toBe(true);
    }
  });
});
