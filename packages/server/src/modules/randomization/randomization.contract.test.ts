import {
  allocationListSchema,
  buttonKey,
  emergencyUnblindedSchema,
  factorDeptSchema,
  randomizationConfigViewSchema,
  randomizationResultSchema,
  randomizationSavedSchema,
  selectedPageSchema,
  simulationResultSchema,
  subjectRandomizationSchema,
  unblindedAllSchema,
} from '@ecrf/core';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { studies } from '../../db/schema/index.js';
import { contractData } from '../../test/contract.js';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../test/test-app.js';

/** Randomization's answers, as the routes give them, against core's contract (randomization/contract.ts). */

const BASE = '/api/business/randomization';

let t: TestApp;
let admin: string;
let nurse: string;
let studyId: number;

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, studyId } = await openDemoStudy(t));
  nurse = await addStudyMember(t, admin, studyId, '13300000021', {
    permissions: [buttonKey('business.randomization.subject')],
  });
});
afterAll(() => t.close());

const get = (token: string, path: string) => t.call(token, 'GET', `${BASE}${path}`);

describe('randomization answers as core describes them', () => {
  it('before configuration', async () => {
    contractData(randomizationConfigViewSchema, await get(admin, `/config?studyId=${studyId}`));
    contractData(randomizationResultSchema, await get(admin, `/result?studyId=${studyId}`));
    contractData(allocationListSchema, await get(admin, `/list/config?studyId=${studyId}`));
  });

  it('configuring, randomizing, the lists, the results, unblinding and the simulation', async () => {
    const config = {
      method: 'block',
      arms: [
        { code: 'A', label: '试验组', ratio: 1 },
        { code: 'B', label: '对照组', ratio: 1 },
      ],
      blinded: true,
      blockSizes: [4],
      listLength: 20,
    };
    contractData(randomizationSavedSchema, await t.call(admin, 'POST', BASE, { studyId, config }));
    contractData(randomizationConfigViewSchema, await get(admin, `/config?studyId=${studyId}`));
    contractData(randomizationConfigViewSchema, await get(nurse, `/config?studyId=${studyId}`));
    contractData(z.array(factorDeptSchema), await get(admin, `/factor/depts?studyId=${studyId}`));

    const patient = await enrolDemoPatient(t, admin, studyId, { subjectName: '随机契约' });
    const subjectId = (await t.call(admin, 'GET', `/api/business/ducking/patientInfo/${patient.subjectRecordId}`)).body
      .data.id as number;
    contractData(subjectRandomizationSchema, await t.call(nurse, 'POST', `${BASE}/subject`, { studyId, subjectId }));
    contractData(subjectRandomizationSchema, await get(nurse, `/subject?studyId=${studyId}&subjectId=${subjectId}`));
    contractData(allocationListSchema, await get(admin, `/list/config?studyId=${studyId}&pageNum=1&pageSize=5`));
    contractData(selectedPageSchema, await get(admin, `/randomly_selected?studyId=${studyId}`));
    contractData(selectedPageSchema, await get(nurse, `/randomly_selected?studyId=${studyId}`));
    contractData(randomizationResultSchema, await get(admin, `/result?studyId=${studyId}`));
    contractData(randomizationResultSchema, await get(nurse, `/result?studyId=${studyId}`));

    const simulated = contractData(
      simulationResultSchema,
      await t.call(admin, 'POST', `${BASE}/simulate`, { studyId, patients: 20, runs: 5 }),
    );
    expect(simulated.runs).toBe(5);

    contractData(
      emergencyUnblindedSchema,
      await t.call(admin, 'PUT', `${BASE}/unblind`, {
        studyId,
        subjectId,
        password: TEST_ADMIN_PASSWORD,
        reason: '严重不良事件',
      }),
    );
    const [{ studyName }] = (await t.db
      .select({ studyName: studies.studyName })
      .from(studies)
      .where(eq(studies.studyId, studyId))) as [{ studyName: string }];
    contractData(
      unblindedAllSchema,
      await t.call(admin, 'PUT', `${BASE}/unblind/all`, {
        studyId,
        password: TEST_ADMIN_PASSWORD,
        confirmText: studyName,
      }),
    );
    contractData(randomizationConfigViewSchema, await get(nurse, `/config?studyId=${studyId}`));
  });
});
