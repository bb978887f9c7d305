import { expect } from 'vitest';
import { storedFiles } from '../db/schema/index.js';
import { waitForJob } from '../modules/export/export.service.js';
import { openDemoStudy } from './demo.js';
import type { TestApp } from './test-app.js';

/**
 * The demo study with patients whose records hold what an export is easily wrong about: a checkbox with the
 * text typed beside its 其他 option, date-times and times, partial dates, uploads (stored files and an image list,
 * by key and by download address), list-group rows with their own addition text, skip rules that show items.
 *   A: all of it; B: a checkbox without 其他, a time with seconds; C: nothing but the patient.
 */
export const STORED = { report: 'e'.repeat(32), xray: 'f'.repeat(32) };
export const STORED_NAMES = { report: '血常规报告.pdf', xray: '腰椎正侧位.png' };
export const SPECIFY_TEXT = '痛风, "高尿酸"';

export interface ExportFixture {
  admin: string;
  studyId: number;
  crfIds: Record<string, number>;
  codes: Record<'A' | 'B' | 'C', string>;
  /** Subject record ids. */
  ids: Record<'A' | 'B' | 'C', number>;
}

export async function seedExportFixture(t: TestApp): Promise<ExportFixture> {
  const { admin, studyId, crfIds } = await openDemoStudy(t);
  await t.db.insert(storedFiles).values(
    (Object.keys(STORED) as Array<keyof typeof STORED>).map((k) => ({
      fileKey: STORED[k],
      studyId,
      fileName: STORED_NAMES[k],
      contentType: 'application/octet-stream',
      size: 1,
      sha256: '0'.repeat(64),
    })),
  );
  const enrol = async (subjectName: string, gender: number, birth: string) => {
    const res = await t.call(admin, 'POST', '/api/business/subject', {
      studyId,
      subjectName,
      gender,
      birth,
      diseaseCode: 'LSS',
      mobile: '13800000009',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const id = res.body.data.subjectRecordId as number;
    const code = (await t.call(admin, 'GET', `/api/business/subject/${id}`)).body.data.identificationCode as string;
    return { id, code };
  };
  const save = async (subjectRecordId: number, crf: string, values: object) => {
    const res = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId,
      crfId: crfIds[crf],
      version: 0,
      values,
      submit: false,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };
  const A = await enrol('张三', 1, '1958-03-02');
  const B = await enrol('李四', 0, '1990-07-15');
  const C = await enrol('王五', 1, '1975-01-01');
  await save(A.id, '人口学资料', {
    sex: '1',
    birth: '1958-03-02',
    ethnic: 'han',
    smoke: '2',
    smoke_years: 20,
    packs: 1.5,
    comorbid: ['dm', 'other'],
    comorbid_addition: SPECIFY_TEXT,
    dm_years: 5,
  });
  await save(B.id, '人口学资料', { sex: '2', birth: '1990-07-15', comorbid: ['op'] });
  await save(A.id, '生命体征', { vs_at: '2026-01-10 08:30:00', sbp: 150, dbp: 90, vs_time: '08:30' });
  await save(B.id, '生命体征', { vs_at: '2026-01-11 09:05:00', sbp: 120, dbp: 70 });
  await save(A.id, '实验室检查', {
    lab_date: '2026-01-10',
    hb: 140,
    lab_report: STORED.report,
    other_labs: [{ lab_item: 'CRP', lab_value: 3.5, lab_at: '2026-01-10 09:00:00' }],
  });
  await save(A.id, '影像学检查', {
    img_date: '2026-01-11',
    stenosis_level: ['L4/5', 'L5/S1'],
    xray: [
      {
        uploadTime: '2026-01-11 10:00:00',
        remarks: '正位',
        dialogImgUrl: `/api/v1/fileupload/downfile?fileKey=${STORED.xray}`,
      },
    ],
  });
  await save(A.id, '术后随访', {
    fu_date: '2026-04-01',
    odi: 30,
    reoperation: '1',
    reop_date: '2026-03',
    fu_time: '10:15:30',
  });
  await save(B.id, '术后随访', { fu_date: '2026-06-01', odi: 20, fu_time: '14:00:00' });
  return {
    admin,
    studyId,
    crfIds,
    codes: { A: A.code, B: B.code, C: C.code },
    ids: { A: A.id, B: B.id, C: C.id },
  };
}

/** Starts an export through the route, follows its job to the end and downloads its file. */
export async function exportFile(
  t: TestApp,
  fixture: Pick<ExportFixture, 'admin' | 'studyId'>,
  body: object,
  api: 'v2' | 'v3' = 'v3',
): Promise<Buffer> {
  const res = await t.call(fixture.admin, 'POST', `/api/${api}/business/search/export`, {
    studyId: fixture.studyId,
    ...body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const jobId = res.body.data.jobId as string;
  const job = await waitForJob(t.ctx, jobId, 60_000);
  expect(job?.state, JSON.stringify(job)).toBe('done');
  const download = await t.app.inject({
    method: 'GET',
    url: `/api/system/jobs/${jobId}/result`,
    headers: { authorization: `Bearer ${fixture.admin}` },
  });
  expect(download.statusCode).toBe(200);
  return download.rawPayload;
}
