import {
  patientBindResultSchema,
  patientConsultAskedSchema,
  patientConsultSchema,
  patientFormItemSchema,
  patientFormSaveResultSchema,
  patientFormSchema,
  patientHomeSchema,
} from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contractData } from '../../test/contract.js';
import { openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/**
 * The patient's own answers (/api/ignore/patient, 在线咨询's included), as the routes give them to a bound patient
 * session, against core's contract (patient-portal-contract.ts).
 */

let t: TestApp;
let admin: string;
let studyId: number;
let vitals: number;

const BASE = '/api/ignore/patient';

/** A call with the patient session's own header, never a staff bearer token. */
async function patientCall(token: string | null, method: string, url: string, payload?: unknown) {
  const res = await t.app.inject({
    method: method as 'GET',
    url,
    headers: token ? { 'x-patient-token': token } : {},
    ...(payload !== undefined ? { payload: payload as object } : {}),
  });
  return { status: res.statusCode, body: res.json() as { data?: unknown } };
}

beforeAll(async () => {
  t = await createTestApp();
  let crfIds: Record<string, number>;
  ({ admin, studyId, crfIds } = await openDemoStudy(t));
  vitals = crfIds['生命体征']!;
  const staff = [
    ['PUT', '/api/business/wechat/settings', { studyId, bindEnabled: true, welcome: '欢迎', proCrfIds: [vitals] }],
    [
      'PUT',
      '/api/business/wechat/disease',
      { studyId, diseaseCode: 'LSS', title: '术后康复须知', content: '按时复诊。' },
    ],
  ] as const;
  for (const [method, url, body] of staff) {
    const res = await t.call(admin, method, url, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
});
afterAll(() => t.close());

describe('the patient’s own calls answer as core describes them (patient-portal-contract.ts)', () => {
  it('binding, the home page, a form read and saved, 在线咨询 and signing out', async () => {
    const enrolled = await t.call(admin, 'POST', '/api/business/subject', {
      studyId,
      subjectName: '赵六',
      gender: 1,
      diseaseCode: 'LSS',
    });
    const subjectId = enrolled.body.data.id as number;
    const code = (await t.call(admin, 'POST', '/api/business/wechat/bind-code', { studyId, subjectId })).body.data
      .code as string;
    const { token } = contractData(
      patientBindResultSchema,
      await patientCall(null, 'POST', `${BASE}/bind`, { studyId, code }),
    );

    const home = contractData(patientHomeSchema, await patientCall(token, 'GET', `${BASE}/home`));
    expect(home.disease).not.toBeNull();
    contractData(z.array(patientFormItemSchema), await patientCall(token, 'GET', `${BASE}/forms`));

    const blank = contractData(patientFormSchema, await patientCall(token, 'GET', `${BASE}/forms/${vitals}`));
    expect(blank.record).toBeNull();
    const saved = contractData(
      patientFormSaveResultSchema,
      await patientCall(token, 'POST', `${BASE}/forms/${vitals}`, { values: { sbp: 128, dbp: 82 }, submit: false }),
    );
    const draft = contractData(patientFormSchema, await patientCall(token, 'GET', `${BASE}/forms/${vitals}`));
    expect(draft.record?.crfDataRecordId).toBe(saved.crfDataRecordId);

    const asked = await patientCall(token, 'POST', `${BASE}/consult`, {
      title: '复查时间',
      question: '术后多久复查？',
    });
    const { id } = contractData(patientConsultAskedSchema, asked);
    const mine = contractData(z.array(patientConsultSchema), await patientCall(token, 'GET', `${BASE}/consult`));
    expect(mine.map((c) => c.id)).toEqual([id]);

    expect(contractData(z.null(), await patientCall(token, 'POST', `${BASE}/logout`))).toBeNull();
  });
});
