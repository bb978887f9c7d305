import {
  followCrfOptionSchema,
  followOverviewSchema,
  followPlanCreatedSchema,
  followPlanDeletedSchema,
  followPlanRowSchema,
  followPlanSchema,
  followPlanUpdatedSchema,
  followRecordChangedSchema,
  followRecordSchema,
  followScheduledSchema,
  followVisitCrfSchema,
  followVisitFormSchema,
} from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contractData, pageOf } from '../../test/contract.js';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/** Follow-up's answers, as the routes give them, against core's contract (follow/contract.ts). */

let t: TestApp;
let admin: string;
let studyId: number;
let crfIds: Record<string, number>;

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, studyId, crfIds } = await openDemoStudy(t));
  const trigger = await t.call(admin, 'PUT', '/api/v1/business/study/follow_trigger', {
    studyId,
    enabled: true,
    crfId: crfIds['手术记录'],
    itemName: 'op_at',
    offsetDays: 0,
  });
  expect(trigger.status, JSON.stringify(trigger.body)).toBe(200);
});
afterAll(() => t.close());

const get = (url: string) => t.call(admin, 'GET', url);

describe('follow-up answers as core describes them', () => {
  it('plans, a patient’s visits and their forms, the overview, and changes to a visit', async () => {
    const adminId = (await t.login()).user.userId;
    const visit = (visitName: string, offset: number) => ({
      visitName,
      offset,
      unit: 'month',
      windowBefore: 7,
      windowAfter: 14,
      responsibleUserId: adminId,
      crfIds: [crfIds['术后随访']],
    });
    const plan = { studyId, planName: '契约随访', diseaseCode: 'LSS', visits: [visit('术后1月', 1)] };
    const { id: planId } = contractData(
      followPlanCreatedSchema,
      await t.call(admin, 'POST', '/api/business/follow', plan),
    );
    contractData(z.array(followCrfOptionSchema), await get(`/api/business/follow/crfs?studyId=${studyId}`));
    contractData(pageOf(followPlanRowSchema), await get(`/api/business/follows?studyId=${studyId}&pageNum=1`));

    const { subjectRecordId } = await enrolDemoPatient(t, admin, studyId, { subjectName: '随访契约' });
    const surgery = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId,
      crfId: crfIds['手术记录'],
      version: 0,
      values: { op_at: '2026-10-31 09:30:00' },
    });
    expect(surgery.status, JSON.stringify(surgery.body)).toBe(200);
    contractData(
      followScheduledSchema,
      await t.call(admin, 'POST', '/api/business/subject/follow', { subjectRecordId }),
    );

    const visits = contractData(
      z.array(followRecordSchema),
      await get(`/api/business/subject/follows?subjectRecordId=${subjectRecordId}`),
    );
    expect(visits.length).toBeGreaterThan(0);
    const { followRecordId } = visits[0]!;
    contractData(pageOf(followRecordSchema), await get(`/api/business/follow/records?studyId=${studyId}&state=0,1,2`));
    contractData(followOverviewSchema, await get(`/api/business/follow/overview?studyId=${studyId}`));
    contractData(followPlanSchema, await get(`/api/business/follow/${planId}`));

    const forms = contractData(
      z.array(followVisitFormSchema),
      await get(`/api/business/subject/follow/crfs?followRecordId=${followRecordId}`),
    );
    contractData(
      followVisitCrfSchema,
      await get(`/api/business/subject/follow/crf?followRecordId=${followRecordId}&crfId=${forms[0]!.crfId}`),
    );
    contractData(
      followVisitCrfSchema,
      await get(`/api/v2/business/subject/follow/crf?followRecordCrfId=${forms[0]!.followRecordCrfId}`),
    );

    contractData(
      followRecordChangedSchema,
      await t.call(admin, 'PUT', '/api/business/follow/record/status', {
        followRecordId,
        action: 'lost',
        reason: '联系不上',
      }),
    );
    contractData(
      followRecordChangedSchema,
      await t.call(admin, 'PUT', '/api/business/follow/record/status', {
        followRecordId,
        action: 'restore',
        reason: '已联系',
      }),
    );
    contractData(
      followRecordChangedSchema,
      await t.call(admin, 'PUT', '/api/business/subject/follow/record', {
        followRecordId,
        plannedDate: '2026-12-05',
        reason: '患者改期',
      }),
    );
    contractData(
      followRecordChangedSchema,
      await t.call(admin, 'PUT', '/api/business/subject/follow/custom', {
        subjectRecordId,
        visitName: '计划外复查',
        plannedDate: '2026-12-10',
        crfIds: [crfIds['术后随访']],
      }),
    );

    contractData(
      followPlanUpdatedSchema,
      await t.call(admin, 'PUT', '/api/business/follow', {
        ...plan,
        id: planId,
        visits: [visit('术后1月', 1), visit('术后3月', 3)],
        reschedule: true,
      }),
    );
    contractData(
      followPlanDeletedSchema,
      await t.call(admin, 'DELETE', `/api/business/follow/${planId}?removePending=true`),
    );
  });
});
