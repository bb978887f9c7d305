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
