import { bindCodeSchema, diseaseNoteSchema, portalSettingsSchema, wxUserPageSchema } from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contractData } from '../../test/contract.js';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/** The patient side's staff answers (公众号设置, 公众号用户, 病种宣教), as the routes give them, against core's contract. */

let t: TestApp;
let admin: string;
let studyId: number;
let crfIds: Record<string, number>;

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, studyId, crfIds } = await openDemoStudy(t));
});
afterAll(() => t.close());

const BASE = '/api/business/wechat';

describe('the patient side’s staff calls answer as core describes them (wechat-contract.ts)', () => {
  it('the settings, read and saved', async () => {
    contractData(portalSettingsSchema, await t.call(admin, 'GET', `${BASE}/settings?studyId=${studyId}`));
    const saved = contractData(
      portalSettingsSchema,
      await t.call(admin, 'PUT', `${BASE}/settings`, {
        studyId,
        bindEnabled: true,
        appId: '',
        welcome: '欢迎参加本研究',
        proCrfIds: [crfIds['生命体征']!],
      }),
    );
    expect(saved.proCrfIds).toEqual([crfIds['生命体征']]);
  });

  it('the patients with a live code, then bound, then unbound', async () => {
    const { identificationCode } = await enrolDemoPatient(t, admin, studyId, { subjectName: '王五' });
    const users = () => t.call(admin, 'GET', `${BASE}/users?studyId=${studyId}&pageNum=1&pageSize=10`);
    const listed = contractData(wxUserPageSchema, await users());
    const subjectId = listed.list.find((r) => r.identificationCode === identificationCode)!.subjectId;

    const issued = contractData(
      bindCodeSchema,
      await t.call(admin, 'POST', `${BASE}/bind-code`, { studyId, subjectId }),
    );
    const withCode = contractData(wxUserPageSchema, await users()).list.find((r) => r.subjectId === subjectId)!;
    expect(withCode.codeExpiresAt).not.toBeNull();

    const bound = await t.app.inject({
      method: 'POST',
      url: '/api/ignore/patient/bind',
      payload: { studyId, code: issued.code },
    });
    expect(bound.statusCode, bound.body).toBe(200);
    const boundRow = contractData(wxUserPageSchema, await users()).list.find((r) => r.subjectId === subjectId)!;
    expect(boundRow).toMatchObject({ bound: true, openId: expect.any(String), boundAt: expect.any(String) });

    const unbound = await t.call(admin, 'POST', `${BASE}/unbind`, { studyId, subjectId });
    expect(contractData(z.null(), unbound)).toBeNull();
    contractData(wxUserPageSchema, await t.call(admin, 'GET', `${BASE}/users?studyId=${studyId}&bound=false`));
  });

  it('the disease notes, read and saved', async () => {
    const notes = contractData(
      z.array(diseaseNoteSchema),
      await t.call(admin, 'GET', `${BASE}/disease?studyId=${studyId}`),
    );
    const saved = contractData(
      z.array(diseaseNoteSchema),
      await t.call(admin, 'PUT', `${BASE}/disease`, {
        studyId,
        diseaseCode: notes[0]!.diseaseCode,
        title: '术后康复须知',
        content: '按时复诊。',
      }),
    );
    expect(saved[0]!.updateTime).not.toBeNull();
  });
});
