import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  candidateUserSchema,
  crfDetailSchema,
  crfFileResultSchema,
  crfListItemSchema,
  crfRowSchema,
  crfStageSchema,
  crfStageSummarySchema,
  crfUploadResultSchema,
  diseaseSchema,
  exampleCrf,
  followTriggerSchema,
  permissionNodeSchema,
  serialNumberStateSchema,
  signConfigSchema,
  stageCrfSchema,
  studyDiseasesSchema,
  studyMemberSchema,
  studyQrSchema,
  studyRoleDetailSchema,
  studyRoleSchema,
  studySchema,
} from '@ecrf/core';
import { contractData, pageOf } from '../../test/contract.js';
import { multipart } from '../../test/multipart.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/** The shared response schemas of core's study contract match what the study routes answer. */

let t: TestApp;
let admin: string;
let studyId: number;
beforeAll(async () => {
  t = await createTestApp();
  admin = (await t.login()).token;
  const res = await t.call(admin, 'POST', '/api/business/study', {
    studyName: '契约研究',
    studyCode: 'CONTRACT',
    diseases: [{ diseaseName: '腰椎管狭窄', diseaseCode: 'LSS' }],
  });
  studyId = contractData(studySchema, res).id;
});
afterAll(() => t.close());

const get = (url: string) => t.call(admin, 'GET', url);

describe('study contract', () => {
  it('a study, its list and its settings', async () => {
    const study = contractData(studySchema, await get(`/api/business/study/${studyId}`));
    expect(study.myRole?.roleName).toBe('项目管理员');
    contractData(pageOf(studySchema), await get('/api/business/study/list'));
    contractData(pageOf(studySchema), await get('/api/business/study/manage/list?pageNum=1&pageSize=10'));
    const updated = await t.call(admin, 'PUT', '/api/business/study', {
      id: studyId,
      enrolmentTarget: 100,
      signConfig: { enabled: true, meaning: '确认' },
    });
    expect(contractData(studySchema, updated).enrolmentTarget).toBe(100);

    contractData(signConfigSchema, await get(`/api/business/study/sign_config?studyId=${studyId}`));
    contractData(followTriggerSchema, await get(`/api/v1/business/study/follow_trigger?studyId=${studyId}`));
    contractData(serialNumberStateSchema, await get(`/api/v2/business/study/serial_number?studyId=${studyId}`));
    const enabled = await t.call(admin, 'PUT', '/api/v2/business/study/serial_number/enable', {
      studyId,
      prefix: 'C-',
      digits: 3,
    });
    expect(contractData(serialNumberStateSchema, enabled).preview).toBe('C-001');
    contractData(studyQrSchema, await get(`/api/business/study/u_qr_code/${studyId}`));
    contractData(z.enum(['0', '1']), await get(`/api/business/study/doubt/${studyId}`));
  });

  it('diseases', async () => {
    const disease = contractData(
      diseaseSchema,
      await t.call(admin, 'POST', '/api/business/study_disease/disease', {
        studyId,
        diseaseName: '腰椎滑脱',
        diseaseCode: 'LDS',
      }),
    );
    const diseases = contractData(studyDiseasesSchema, await get(`/api/business/study_disease/${studyId}`));
    expect(diseases.diseases.map((d) => d.diseaseCode)).toEqual(['LSS', 'LDS']);
    contractData(z.array(z.number()), await get(`/api/business/study_disease/disease/crf/${disease.id}`));
  });

  it('CRFs: upload, dry run, batch upload, list, page and detail', async () => {
    const definition = { ...exampleCrf(), title: '契约表单' };
    const planned = await t.call(admin, 'POST', '/api/system/crf', { studyId, definition, dryRun: true });
    expect(contractData(crfUploadResultSchema, planned).plan).toHaveLength(1);
    const uploaded = contractData(
      crfUploadResultSchema,
      await t.call(admin, 'POST', '/api/system/crf', { studyId, definition }),
    );
    const crfId = uploaded.crfs[0]!.id;

    const form = multipart({ studyId: String(studyId) }, [
      { fileName: 'good.json', data: JSON.stringify({ ...exampleCrf(), title: '契约表单二' }) },
      { fileName: 'bad.json', data: '{"title": ' },
    ]);
    const batch = await t.app.inject({
      method: 'POST',
      url: '/api/system/crf/multi',
      headers: { ...form.headers, authorization: `Bearer ${admin}` },
      payload: form.payload,
    });
    const files = contractData(z.array(crfFileResultSchema), { status: batch.statusCode, body: batch.json() });
    expect(files.map((f) => f.ok)).toEqual([true, false]);

    contractData(pageOf(crfRowSchema), await get(`/api/system/crfs?studyId=${studyId}&pageNum=1&pageSize=10`));
    contractData(z.array(crfListItemSchema), await get(`/api/system/crf/list?studyId=${studyId}`));
    contractData(crfDetailSchema, await get(`/api/system/crf/${crfId}`));
  });

  it('stages and their forms', async () => {
    const root = contractData(
      crfStageSummarySchema,
      await t.call(admin, 'POST', '/api/business/crf_menu/crf_stage', { studyId, name: '基线' }),
    );
    contractData(
      crfStageSummarySchema,
      await t.call(admin, 'POST', '/api/business/crf_menu/crf_stage', { studyId, parentId: root.id, name: '访视1' }),
    );
    contractData(
      crfStageSummarySchema,
      await t.call(admin, 'PUT', '/api/business/crf_menu/crf_stage', { id: root.id, name: '基线期', orderNum: 1 }),
    );
    const [crf] = contractData(z.array(crfListItemSchema), await get(`/api/system/crf/list?studyId=${studyId}`));
    const imported = await t.call(admin, 'POST', '/api/business/crf_menu/crf_stage/crf/import', {
      crfStageId: root.id,
      crfIds: [crf!.id],
    });
    expect(imported.status).toBe(200);

    const tree = contractData(
      z.array(crfStageSchema),
      await get(`/api/business/crf_menu/crf_stages?studyId=${studyId}`),
    );
    expect(tree[0]!.children).toHaveLength(1);
    contractData(crfStageSummarySchema, await get(`/api/business/crf_menu/crf_stage?id=${root.id}`));
    contractData(z.array(stageCrfSchema), await get(`/api/business/crf_menu/crf_stage/crfs?id=${root.id}`));
  });

  it('roles and staff', async () => {
    contractData(z.array(permissionNodeSchema), await get(`/api/system/studyRole/tree?studyId=${studyId}`));
    const role = contractData(
      studyRoleDetailSchema,
      await t.call(admin, 'POST', '/api/system/studyRole', {
        studyId,
        roleName: '监查员',
        permissions: ['btn:business.crf.sdv'],
      }),
    );
    contractData(studyRoleDetailSchema, await get(`/api/system/studyRole?id=${role.id}`));
    contractData(z.array(studyRoleSchema), await get(`/api/system/studyRoles?studyId=${studyId}`));

    const candidates = contractData(
      z.array(candidateUserSchema),
      await get(`/api/business/study_personnel/uncommitted?studyId=${studyId}`),
    );
    if (candidates[0]) {
      const added = await t.call(admin, 'POST', '/api/business/study_personnel', {
        studyId,
        userIds: [candidates[0].userId],
        studyRoleId: role.id,
      });
      expect(added.status).toBe(200);
    }
    const members = contractData(
      pageOf(studyMemberSchema),
      await get(`/api/business/study_personnel/list?studyId=${studyId}&pageNum=1&pageSize=10`),
    );
    expect(members.total).toBeGreaterThan(0);
  });
});
