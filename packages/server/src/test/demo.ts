import { seedDemoStudy } from '../db/demo-study.js';
import type { TestApp } from './test-app.js';

/** Seeds the demo study and signs the administrator in: its token, the study and its CRF ids by title. */
export async function openDemoStudy(
  t: TestApp,
): Promise<{ admin: string; studyId: number; crfIds: Record<string, number> }> {
  await seedDemoStudy(t.db);
  const admin = (await t.login()).token;
  const studyId = (await t.call(admin, 'GET', '/api/business/study/list')).body.data.list[0].id as number;
  const crfIds: Record<string, number> = {};
  for (const crf of (await t.call(admin, 'GET', `/api/system/crf/list?studyId=${studyId}`)).body.data) {
    crfIds[crf.title] = crf.id;
  }
  return { admin, studyId, crfIds };
}

/** Enrols a patient of the demo study's disease through the API, as the patient dialog does. */
export async function enrolDemoPatient(
  t: TestApp,
  token: string,
  studyId: number,
  patient: { subjectName: string; gender?: number; birth?: string },
): Promise<{ identificationCode: string; subjectRecordId: number }> {
  const res = await t.call(token, 'POST', '/api/business/subject', {
    studyId,
    gender: 1,
    birth: '1960-05-01',
    diseaseCode: 'LSS',
    ...patient,
  });
  if (res.status !== 200) throw new Error(`enrolment refused: ${JSON.stringify(res.body)}`);
  return { identificationCode: res.body.data.identificationCode, subjectRecordId: res.body.data.subjectRecordId };
}
