import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import type { CrfDefinition } from '@ecrf/core';
import { studies, subjectRecords, subjects } from '../../db/schema/index.js';
import { multipart } from '../../test/multipart.js';
import type { TestApp } from '../../test/test-app.js';
import { V1 } from '../../test/amendment-fixture.js';

export { FORM_TITLE, V1, V2 } from '../../test/amendment-fixture.js';

export interface AmendmentStudy {
  admin: string;
  studyId: number;
  crfId: number;
  siteA: number;
  siteB: number;
}

let studies_ = 0;

/** A new study in 上线 (production) with 随访评估 v1 and two sites. */
export async function openAmendmentStudy(t: TestApp, admin: string): Promise<AmendmentStudy> {
  studies_ += 1;
  const created = await t.call(admin, 'POST', '/api/business/study', {
    studyName: `修订研究${process.pid}-${studies_}`,
    studyCode: `AM${studies_}`,
    diseases: [{ diseaseName: '腰椎管狭窄', diseaseCode: 'LSS' }],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const studyId = created.body.data.id as number;
  await t.db.update(studies).set({ mode: 'production' }).where(eq(studies.studyId, studyId));
  const uploaded = await t.call(admin, 'POST', '/api/system/crf', { studyId, definition: V1 });
  expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(200);
  const crfId = uploaded.body.data.crfs[0].id as number;
  const site = async (deptName: string) => {
    const res = await t.call(admin, 'POST', '/api/system/dept', { deptName, parentId: 1, orderNum: 5 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.deptId as number;
  };
  return { admin, studyId, crfId, siteA: await site(`甲中心${studies_}`), siteB: await site(`乙中心${studies_}`) };
}

/** Uploads a definition into the CRF's draft (multipart, draft=1). */
export async function uploadDraft(t: TestApp, admin: string, studyId: number, definition: CrfDefinition, extra = {}) {
  const body = multipart({ studyId: String(studyId), draft: '1', ...extra }, [
    { fileName: `${definition.title}.json`, data: JSON.stringify(definition) },
  ]);
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/system/crf',
    headers: { ...body.headers, authorization: `Bearer ${admin}` },
    payload: body.payload,
  });
  return { status: res.statusCode, body: res.json() as { code: number; msg: string; data: any } };
}

let patients = 0;

/** Enrols a patient (at a site, a test patient when asked: the flag H3's enrolment writes, set here directly). */
export async function enrol(t: TestApp, s: AmendmentStudy, options: { siteId?: number; test?: boolean } = {}) {
  patients += 1;
  const res = await t.call(s.admin, 'POST', '/api/business/subject', {
    studyId: s.studyId,
    subjectName: `修订患者${patients}`,
    identificationCode: `P${String(patients).padStart(5, '0')}`,
    gender: 1,
    birth: '1960-05-01',
    diseaseCode: 'LSS',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const subjectRecordId = res.body.data.subjectRecordId as number;
  const [row] = await t.db
    .select({ subjectId: subjectRecords.subjectId })
    .from(subjectRecords)
    .where(eq(subjectRecords.id, subjectRecordId));
  await t.db
    .update(subjects)
    .set({ deptId: options.siteId ?? s.siteA, test: options.test ?? false })
    .where(eq(subjects.id, row!.subjectId));
  return { subjectRecordId, subjectId: row!.subjectId };
}

/** Saves (and optionally submits) the form's record through the form page's route; answers the record. */
export async function save(
  t: TestApp,
  s: AmendmentStudy,
  subjectRecordId: number,
  values: Record<string, unknown>,
  opts: { submit?: boolean; record?: { id: number; version: number }; reason?: string } = {},
) {
  const res = await t.call(s.admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId,
    crfId: s.crfId,
    crfDataRecordId: opts.record?.id ?? null,
    version: opts.record?.version ?? 0,
    values,
    submit: opts.submit ?? false,
    ...(opts.reason ? { reason: opts.reason } : {}),
  });
  return res;
}

/** Waits for a job to end (by its progress events, not by time) and answers it as it ended. */
export async function jobEnded(t: TestApp, jobId: string) {
  const ended = (state: string) => state === 'done' || state === 'failed' || state === 'cancelled';
  const job = await new Promise<Awaited<ReturnType<TestApp['ctx']['jobs']['get']>>>((resolve) => {
    const stop = t.ctx.jobs.onProgress((view) => {
      if (view.jobId === jobId && ended(view.state)) {
        stop();
        void t.ctx.jobs.get(jobId).then(resolve);
      }
    });
    void t.ctx.jobs.get(jobId).then((now) => {
      if (now && ended(now.state)) {
        stop();
        resolve(now);
      }
    });
  });
  return job!;
}

/** Starts a migration through the route and waits for its job. */
export async function migrate(t: TestApp, s: AmendmentStudy, amendmentId: number, scope: unknown, reason?: string) {
  const res = await t.call(s.admin, 'POST', '/api/business/amendment/migrate', {
    studyId: s.studyId,
    amendmentId,
    scope,
    ...(reason ? { reason } : {}),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return jobEnded(t, res.body.data.jobId as string);
}
