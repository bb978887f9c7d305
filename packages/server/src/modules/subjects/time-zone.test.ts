import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

let t: TestApp;
let admin: string;
let studyId: number;
let crfIds: Record<string, number>;

// The clock reads 2026-11-22T20:00:00Z: 23 November 04:00 in Shanghai, 22 November 15:00 in New York.
beforeAll(async () => {
  t = await createTestApp();
  ({ studyId, crfIds } = await openDemoStudy(t));
  t.clock.advance(12 * 3600_000);
  admin = (await t.login()).token;
});
afterAll(() => t.close());

const setZone = (timeZone: string) => t.call(admin, 'PUT', '/api/business/study', { id: studyId, timeZone });

const enrol = (birth: string) =>
  t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName: '赵六',
    gender: 0,
    birth,
    diseaseCode: 'LSS',
    mobile: '13912345678',
  });

describe("one time zone: the study's, whatever the server's", () => {
  it('"today" for a birth date is the study\'s today (a birth date at least 10 days back)', async () => {
    expect((await setZone('America/New_York')).status).toBe(200);
    const nineDaysInNewYork = await enrol('2026-11-13');
    expect(nineDaysInNewYork.status).toBe(400);
    expect(nineDaysInNewYork.body.msg).toBe('出生日期不能晚于当前日期前10天');
    expect((await setZone('Asia/Shanghai')).status).toBe(200);
    const tenDaysInShanghai = await enrol('2026-11-13');
    expect(tenDaysInShanghai.status, JSON.stringify(tenDaysInShanghai.body)).toBe(200);
  });

  it("a new form's \"now\" default and the detail's zone are the study's", async () => {
    const subject = (await enrol('1960-01-01')).body.data as { subjectRecordId: number };
    const vitals = crfIds['生命体征']!;
    const open = async () =>
      (await t.call(admin, 'GET', `/api/v3/business/crf/${subject.subjectRecordId}?crfId=${vitals}`)).body.data;
    const shanghai = await open();
    expect(shanghai.timeZone).toBe('Asia/Shanghai');
    expect(shanghai.initialValues.vs_at).toBe('2026-11-23 04:00:00');
    await setZone('America/New_York');
    const newYork = await open();
    expect(newYork.timeZone).toBe('America/New_York');
    expect(newYork.initialValues.vs_at).toBe('2026-11-22 15:00:00');
    await setZone('Asia/Shanghai');
  });
});
