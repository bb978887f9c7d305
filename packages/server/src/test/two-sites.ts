import { and, eq } from 'drizzle-orm';
import { allStudyPermissionKeys, buttonKey } from '@ecrf/core';
import { studyPersonnel, subjectRecords, subjects, users } from '../db/schema/index.js';
import { enrolDemoPatient, openDemoStudy } from './demo.js';
import { addStudyMember } from './study-member.js';
import type { TestApp } from './test-app.js';

export const ALL_SITES = buttonKey('business.subject.allSites');

/**
 * A two-site study (docs/multi-centre.md): the demo study with sites 甲中心 and 乙中心 (departments under the root),
 * a nurse at each holding every study key but 查看全部中心数据, a monitor holding them all, and one patient at each
 * site. The patients' names are markers a test can look for in any answer.
 */
export async function openTwoSiteStudy(t: TestApp) {
  const { admin, studyId, crfIds } = await openDemoStudy(t);
  const site = async (deptName: string) => {
    const res = await t.call(admin, 'POST', '/api/system/dept', { deptName, parentId: 1, orderNum: 5 });
    if (res.status !== 200) throw new Error(`department refused: ${JSON.stringify(res.body)}`);
    return res.body.data.deptId as number;
  };
  const siteA = await site('甲中心');
  const siteB = await site('乙中心');
  const every = allStudyPermissionKeys(Object.values(crfIds));
  const scoped = every.filter((k) => k !== ALL_SITES);
  const member = async (userName: string, permissions: string[], deptId: number) => {
    const token = await addStudyMember(t, admin, studyId, userName, { permissions });
    const [user] = await t.db.select({ userId: users.userId }).from(users).where(eq(users.userName, userName));
    await t.db.update(users).set({ deptId }).where(eq(users.userId, user!.userId));
    await t.db
      .update(studyPersonnel)
      .set({ deptId })
      .where(and(eq(studyPersonnel.studyId, studyId), eq(studyPersonnel.userId, user!.userId)));
    return { token, userId: user!.userId };
  };
  const nurseA = await member('13700000001', scoped, siteA);
  const nurseB = await member('13700000002', scoped, siteB);
  const monitor = await member('13700000003', every, siteA);
  const patientA = await enrolDemoPatient(t, admin, studyId, { subjectName: '甲院患者' });
  const patientB = await enrolDemoPatient(t, admin, studyId, { subjectName: '乙院患者' });
  await moveToSite(t, patientA.subjectRecordId, siteA);
  await moveToSite(t, patientB.subjectRecordId, siteB);
  return { admin, studyId, crfIds, siteA, siteB, nurseA, nurseB, monitor, patientA, patientB };
}

async function moveToSite(t: TestApp, subjectRecordId: number, deptId: number) {
  const [row] = await t.db
    .select({ subjectId: subjectRecords.subjectId })
    .from(subjectRecords)
    .where(eq(subjectRecords.id, subjectRecordId));
  await t.db.update(subjects).set({ deptId }).where(eq(subjects.id, row!.subjectId));
}

export type TwoSiteStudy = Awaited<ReturnType<typeof openTwoSiteStudy>>;
