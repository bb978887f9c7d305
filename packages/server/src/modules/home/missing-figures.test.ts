import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/** 缺失原因 (issue 37) in the home figures: items marked missing, in all and per code. */
let t: TestApp;
let admin: string;
let studyId: number;
let crfIds: Record<string, number>;

const figures = async () => {
  const res = await t.call(admin, 'GET', `/api/business/index?studyId=${studyId}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.missingMarks as { total: number; byCode: Array<{ code: string; label: string; count: number }> };
};

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, studyId, crfIds } = await openDemoStudy(t));
});
afterAll(() => t.close());

describe('缺失原因 in the study home figures', () => {
  it('counts each marked item per code, every study code listed', async () => {
    const before = await figures();
    expect(before.byCode.map((c) => c.code)).toEqual(['ND', 'NA', 'UNK', 'ASKU']);
    const save = async (name: string, missing: Record<string, string>) => {
      const { subjectRecordId } = await enrolDemoPatient(t, admin, studyId, { subjectName: name });
      const res = await t.call(admin, 'PUT', '/api/v3/business/crf', {
        subjectRecordId,
        crfId: crfIds['生命体征'],
        version: 0,
        values: {},
        missing,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };
    await save('首页缺失甲', { sbp: 'ND', dbp: 'ND' });
    await save('首页缺失乙', { sbp: 'UNK' });
    const after = await figures();
    const delta = (code: string) =>
      after.byCode.find((c) => c.code === code)!.count - before.byCode.find((c) => c.code === code)!.count;
    expect(delta('ND')).toBe(2);
    expect(delta('UNK')).toBe(1);
    expect(delta('NA')).toBe(0);
    expect(after.total - before.total).toBe(3);
    expect(after.byCode.find((c) => c.code === 'ND')!.label).toBe('未查');
  });
});
