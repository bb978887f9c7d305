import { calendarEventViewSchema, calendarTodaySchema } from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contractData, pageOf } from '../../test/contract.js';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/** The calendar's answers, as the routes give them, against core's contract (calendar.ts). */

let t: TestApp;
let admin: string;
let studyId: number;

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, studyId } = await openDemoStudy(t));
});
afterAll(() => t.close());

const BASE = '/api/business/events';

describe('the calendar answers as core describes it', () => {
  it('a timed event about a patient, an all-day one, the range, today’s count, an edit and a removal', async () => {
    const { subjectRecordId } = await enrolDemoPatient(t, admin, studyId, { subjectName: '日历契约' });
    const patient = await t.call(admin, 'GET', `/api/business/ducking/patientInfo/${subjectRecordId}`);
    const timed = contractData(
      calendarEventViewSchema,
      await t.call(admin, 'POST', BASE, {
        studyId,
        title: '电话随访',
        startTime: '2026-11-22T09:00:00+08:00',
        endTime: '2026-11-22T09:30:00+08:00',
        subjectId: patient.body.data.id,
        remindBefore: 15,
      }),
    );
    contractData(
      calendarEventViewSchema,
      await t.call(admin, 'POST', BASE, {
        studyId,
        title: '中心启动会',
        allDay: true,
        startDate: '2026-11-23',
        endDate: '2026-11-24',
      }),
    );
    const range = contractData(
      pageOf(calendarEventViewSchema),
      await t.call(admin, 'GET', `${BASE}?studyId=${studyId}&startDate=2026-11-01&endDate=2026-11-30`),
    );
    expect(range.total).toBe(2);
    contractData(calendarTodaySchema, await t.call(admin, 'GET', `${BASE}/count?studyId=${studyId}`));
    contractData(calendarEventViewSchema, await t.call(admin, 'GET', `${BASE}/${timed.id}?studyId=${studyId}`));
    contractData(
      calendarEventViewSchema,
      await t.call(admin, 'PUT', `${BASE}/${timed.id}`, {
        studyId,
        title: '电话随访（改）',
        startTime: '2026-11-22T10:00:00+08:00',
        endTime: '2026-11-22T10:30:00+08:00',
      }),
    );
    expect(contractData(z.null(), await t.call(admin, 'DELETE', `${BASE}/${timed.id}?studyId=${studyId}`))).toBeNull();
  });
});
