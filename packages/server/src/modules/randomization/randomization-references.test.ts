import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrfDefinition } from '@ecrf/core';
import { openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

const BASE = '/api/business/randomization';

const sexForm: CrfDefinition = {
  title: '外院人口学',
  option: {},
  children: [
    {
      name: 'sex',
      title: '性别',
      type: 'radio',
      option: { optionsValue: '1,2', optionsText: '男,女' },
      children: [],
    },
  ],
} as unknown as CrfDefinition;

/** Minimization by sex read from a form: the form is the only reference to another study. */
const bySexOn = (crfId: number) => ({
  method: 'minimization',
  arms: [
    { code: 'A', label: '试验组', ratio: 1 },
    { code: 'B', label: '对照组', ratio: 1 },
  ],
  blinded: true,
  factors: [
    {
      key: 'sex',
      label: '性别',
      source: 'item',
      crfId,
      itemName: 'sex',
      weight: 1,
      levels: [
        { code: 'M', label: '男', values: ['1'] },
        { code: 'F', label: '女', values: ['2'] },
      ],
    },
  ],
  minimization: { imbalance: 'range', p: 0.8 },
});

describe("randomization: a configuration names only its own study's forms", () => {
  let t: TestApp;
  let admin: string;
  let studyId: number;
  let ownCrfId: number;
  let foreignCrfId: number;

  beforeAll(async () => {
    t = await createTestApp();
    let crfIds: Record<string, number>;
    ({ admin, studyId, crfIds } = await openDemoStudy(t));
    ownCrfId = crfIds['人口学资料']!;
    const other = await t.call(admin, 'POST', '/api/business/study', {
      studyName: '另一项目',
      studyCode: 'OTHER1',
      diseases: [{ diseaseName: '腰椎管狭窄', diseaseCode: 'LSS' }],
    });
    expect(other.status, JSON.stringify(other.body)).toBe(200);
    const form = await t.call(admin, 'POST', '/api/system/crf', { studyId: other.body.data.id, definition: sexForm });
    expect(form.status, JSON.stringify(form.body)).toBe(200);
    foreignCrfId = form.body.data.crfs[0].id as number;
  });
  afterAll(() => t.close());

  it("RAND-03: saving a configuration whose factor reads another study's form is refused (400)", async () => {
    const res = await t.call(admin, 'POST', BASE, { studyId, config: bySexOn(foreignCrfId) });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 400, msg: '随机化配置引用的表单不存在' });
  });

  it("a simulation of a configuration whose factor reads another study's form is refused (400); its own form runs", async () => {
    for (const fromPatients of [false, true]) {
      const res = await t.call(admin, 'POST', `${BASE}/simulate`, {
        studyId,
        config: bySexOn(foreignCrfId),
        patients: 20,
        runs: 2,
        fromPatients,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toMatchObject({ code: 400, msg: '随机化配置引用的表单不存在', data: null });
    }
    const own = await t.call(admin, 'POST', `${BASE}/simulate`, {
      studyId,
      config: bySexOn(ownCrfId),
      patients: 20,
      runs: 2,
      fromPatients: true,
    });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
  });
});
