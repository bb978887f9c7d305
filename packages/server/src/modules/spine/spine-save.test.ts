import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPINE_COBB_MISMATCH, cobbAngles, defaultSpineTemplate, roundAngle, spineCobbValue } from '@ecrf/core';
import { seedDemoStudy } from '../../db/demo-study.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

let t: TestApp;
let admin: string;
let studyId: number;
let imagingId: number;

beforeAll(async () => {
  t = await createTestApp({ config: { dataDir: `/tmp/edc-spine-save-test-${process.pid}` } });
  await seedDemoStudy(t.db);
  admin = (await t.login()).token;
  studyId = (await t.call(admin, 'GET', '/api/business/study/list')).body.data.list[0].id;
  const crfs = (await t.call(admin, 'GET', `/api/system/crf/list?studyId=${studyId}`)).body.data as Array<{
    id: number;
    title: string;
  }>;
  imagingId = crfs.find((c) => c.title === '影像学检查')!.id;
});
afterAll(() => t.close());

function corrected(): number[] {
  const l = defaultSpineTemplate();
  const half = l.length / 2;
  l[half + 21]! -= 0.012;
  l[half + 51]! += 0.012;
  return l;
}

describe('the spineCobb item through the form save', () => {
  it('SPA-01, SPA-04, SPA-10: the server refuses forged angles, calculates the named items itself, and audits them', async () => {
    const subject = (
      await t.call(admin, 'POST', '/api/business/subject', {
        studyId,
        subjectName: '郑小雨',
        gender: 0,
        birth: '2009-05-06',
        diseaseCode: 'LSS',
      })
    ).body.data as { subjectRecordId: number };
    const value = spineCobbValue({ landmarks: corrected(), imgWidth: 1084, imgHeight: 2437, imgURL: 'x'.repeat(32) });
    const forged = { ...value, angles: { ...value.angles, pt: { ...value.angles.pt, angle: 5 } } };
    const base = { subjectRecordId: subject.subjectRecordId, crfId: imagingId, version: 0 };

    const refused = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      ...base,
      values: { img_date: '2026-11-20', spine_cobb: JSON.stringify(forged) },
    });
    expect(refused.body.code).not.toBe(200);
    expect(JSON.stringify(refused.body)).toContain(SPINE_COBB_MISMATCH);

    // A client's own numbers for the named items are replaced by the server's calculation.
    const saved = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      ...base,
      values: { img_date: '2026-11-20', spine_cobb: JSON.stringify(value), cobb_pt: '99', cobb_curve: 'X' },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const recordId = saved.body.data.crfDataRecordId as number;
    const cobb = cobbAngles(corrected(), 1084, 2437);
    await t.ctx.events.drain();
    const trail = async (item: string) =>
      (await t.call(admin, 'GET', `/api/business/crf/audit?crfDataRecordId=${recordId}&itemName=${item}`)).body
        .data as Array<{ action: string; newValue: unknown; userName: string }>;
    const pt = await trail('cobb_pt');
    expect(pt.length).toBeGreaterThan(0);
    expect(Number(pt[0]!.newValue)).toBe(roundAngle(cobb.pt.angle));
    expect((await trail('cobb_curve'))[0]!.newValue).toBe(cobb.curveType);
    const raw = (await trail('spine_cobb'))[0]!.newValue;
    const stored = (typeof raw === 'string' ? JSON.parse(raw) : raw) as typeof value;
    // Full precision is kept in the stored result (SPA-10 rounds only what is shown).
    expect(stored.angles.pt.angle).toBe(cobb.pt.angle);
  });
});
