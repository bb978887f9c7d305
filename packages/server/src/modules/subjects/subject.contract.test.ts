import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  auditEventSchema,
  recordColumnSchema,
  studyIndexSchema,
  subjectFormModelSchema,
  subjectRecordRowSchema,
  subjectSchema,
} from '@ecrf/core';
import { seedDemoStudy } from '../../db/demo-study.js';
import { contractData, pageOf } from '../../test/contract.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/** The shared response schemas of core's subject contract match what the patient routes answer. */

let t: TestApp;
let admin: string;
let studyId: number;
beforeAll(async () => {
  t = await createTestApp({ config: { dataDir: `/tmp/edc-subject-contract-test-${process.pid}` } });
  await seedDemoStudy(t.db);
  admin = (await t.login()).token;
  studyId = (await t.call(admin, 'GET', '/api/business/study/list')).body.data.list[0].id;
});
afterAll(() => t.close());

const get = (url: string) => t.call(admin, 'GET', url);

describe('subject contract', () => {
  it('a patient: the dialog model, enrolment, reads, edit and site move', async () => {
    contractData(subjectFormModelSchema, await get(`/api/v2/business/subject/crf?studyId=${studyId}`));
    contractData(z.boolean(), await get(`/api/business/subject/unique?studyId=${studyId}&identificationCode=X-1`));
    const enrolled = contractData(
      subjectSchema,
      await t.call(admin, 'POST', '/api/business/subject', {
        studyId,
        subjectName: '赵六',
        gender: 0,
        birth: '1960-05-01',
        mobile: '13912345670',
        idNumber: '11010519491231002X',
        diseaseCode: 'LSS',
      }),
    );
    contractData(subjectSchema, await get(`/api/business/subject/${enrolled.id}`));
    contractData(subjectSchema, await get(`/api/business/ducking/patientInfo/${enrolled.subjectRecordId}`));
    const edited = await t.call(admin, 'PUT', '/api/business/subject', { id: enrolled.id, mobile: '13912345671' });
    expect(contractData(subjectSchema, edited).mobile).toBe('13912345671');

    const site = await t.call(admin, 'POST', '/api/system/dept', { parentId: 1, deptName: '契约分中心' });
    const moved = await t.call(admin, 'PUT', '/api/business/subject/site', {
      subjectId: enrolled.id,
      deptId: site.body.data.deptId,
      reason: '患者转院',
    });
    expect(contractData(subjectSchema, moved).deptId).toBe(site.body.data.deptId);
  });

  it('the patient list, its columns, a casebook trail and the study home', async () => {
    const list = contractData(
      pageOf(subjectRecordRowSchema),
      await t.call(admin, 'POST', '/api/v3/business/subjectRecord/list', { studyId, pageNum: 1, pageSize: 10 }),
    );
    const row = list.list[0]!;
    contractData(
      pageOf(subjectRecordRowSchema),
      await get(`/api/v1/business/subjectRecord/list?studyId=${studyId}&pageNum=1&pageSize=10&deleted=false`),
    );
    contractData(z.array(recordColumnSchema), await get(`/api/v3/business/subjectRecord/columns?studyId=${studyId}`));

    const trail = contractData(
      pageOf(auditEventSchema),
      await get(`/api/business/subjectRecord/operates?subjectRecordId=${row.subjectRecordId}&pageNum=1&pageSize=10`),
    );
    expect(trail.total).toBeGreaterThan(0);
    contractData(auditEventSchema, await get(`/api/business/subjectRecord/operate?id=${trail.list[0]!.id}`));
    contractData(studyIndexSchema, await get(`/api/business/index?studyId=${studyId}`));
  });
});
