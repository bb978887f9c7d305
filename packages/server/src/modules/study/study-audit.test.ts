import { and, asc, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../db/schema/index.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { chainRows, verifyAuditChains } from '../audit/audit-chain.js';

let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await createTestApp();
  admin = (await t.login()).token;
});
afterAll(() => t.close());

async function createStudy(studyCode: string) {
  const res = await t.call(admin, 'POST', '/api/business/study', {
    studyName: '配置审计',
    studyCode,
    diseases: [{ diseaseName: '腰椎管狭窄', diseaseCode: 'LSS' }],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.id as number;
}

/** The study's audit rows after `afterId`, oldest first, values as stored. */
async function rowsAfter(studyId: number, afterId = 0) {
  return (await chainRows(t.db, eq(auditEvents.studyId, studyId))).filter((r) => r.id > afterId);
}

const lastId = async (studyId: number) => (await rowsAfter(studyId)).at(-1)?.id ?? 0;

describe('study configuration changes are audited on the study chain', () => {
  it('STUDY-06: creating a study writes its first audit row with the settings it starts with', async () => {
    const studyId = await createStudy('AUD01');
    const [first, ...rest] = await rowsAfter(studyId);
    expect(rest).toEqual([]);
    expect(first).toMatchObject({ action: 'study.create', prevHash: null, userName: '系统管理员(13800000000)' });
    expect(first!.newValue).toMatchObject({
      studyCode: 'AUD01',
      doubt: '1',
      enableSerialNumber: false,
      diseases: [{ diseaseCode: 'LSS' }],
    });
  });

  it('STUDY-07: an edit writes one row per changed setting with old and new value, who, when and the reason; unchanged settings write none', async () => {
    const studyId = await createStudy('AUD02');
    const before = await lastId(studyId);
    const res = await t.call(admin, 'PUT', '/api/business/study', {
      id: studyId,
      studyName: '配置审计', // unchanged
      displayCrfColumn: ['sbp'],
      signConfig: { enabled: true, meaning: '本人确认以上数据真实准确' },
      baseConfig: [{ name: 'mobile', header: '联系电话', display: true, required: true }],
      reason: '伦理委员会批准方案修订 V2',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const rows = await rowsAfter(studyId, before);
    expect(rows.map((r) => r.itemName).sort()).toEqual(['baseConfig', 'displayCrfColumn', 'signConfig']);
    for (const row of rows) {
      expect(row).toMatchObject({
        action: 'study.config',
        reason: '伦理委员会批准方案修订 V2',
        userId: 1,
        userName: '系统管理员(13800000000)',
      });
      expect(row.createdAt.toISOString()).toBe(t.clock().toISOString());
    }
    const byItem = Object.fromEntries(rows.map((r) => [r.itemName, r]));
    expect(byItem.signConfig).toMatchObject({
      oldValue: { enabled: false, meaning: '' },
      newValue: { enabled: true, meaning: '本人确认以上数据真实准确' },
    });
    expect(byItem.displayCrfColumn).toMatchObject({ oldValue: [], newValue: ['sbp'] });
    const mobile = (v: unknown) => (v as Array<{ name: string }>).find((f) => f.name === 'mobile');
    expect(mobile(byItem.baseConfig!.oldValue)).toMatchObject({ header: '手机号', required: false });
    expect(mobile(byItem.baseConfig!.newValue)).toMatchObject({ header: '联系电话', required: true });

    // The same settings sent again change nothing and write nothing.
    const again = await t.call(admin, 'PUT', '/api/business/study', {
      id: studyId,
      displayCrfColumn: ['sbp'],
      signConfig: { enabled: true, meaning: '本人确认以上数据真实准确' },
    });
    expect(again.status).toBe(200);
    expect(await rowsAfter(studyId, rows.at(-1)!.id)).toEqual([]);
  });

  it('STUDY-10/STUDY-12/STUDY-13: the doubt flag, serial numbering enable and close, follow-up triggers and diseases each write their rows', async () => {
    const studyId = await createStudy('AUD03');
    const before = await lastId(studyId);
    expect((await t.call(admin, 'POST', '/api/business/study/doubt', { studyId, doubt: '0' })).status).toBe(200);
    expect(
      (
        await t.call(admin, 'PUT', '/api/v2/business/study/serial_number/enable', {
          studyId,
          prefix: 'LSS-',
          digits: 3,
        })
      ).status,
    ).toBe(200);
    expect((await t.call(admin, 'PUT', '/api/v2/business/study/serial_number/close', { studyId })).status).toBe(200);
    const trigger = { enabled: true, crfId: null, itemName: null, offsetDays: 30 };
    expect(
      (await t.call(admin, 'PUT', '/api/v2/business/study/follow_trigger', { studyId, triggers: [trigger] })).status,
    ).toBe(200);
    expect(
      (await t.call(admin, 'PUT', '/api/business/study_disease/multi_disease', { studyId, multiDisease: true })).status,
    ).toBe(200);
    const disease = await t.call(admin, 'POST', '/api/business/study_disease/disease', {
      studyId,
      diseaseName: '颈椎病',
      diseaseCode: 'CSM',
    });
    expect(disease.status, JSON.stringify(disease.body)).toBe(200);
    expect(
      (
        await t.call(admin, 'PUT', '/api/business/study_disease/disease', {
          id: disease.body.data.id,
          diseaseName: '脊髓型颈椎病',
          diseaseCode: 'CSM',
        })
      ).status,
    ).toBe(200);
    expect(
      (await t.call(admin, 'DELETE', `/api/business/study_disease/disease?id=${disease.body.data.id}`)).status,
    ).toBe(200);

    const rows = (await rowsAfter(studyId, before)).map((r) => [r.action, r.itemName, r.oldValue, r.newValue]);
    expect(rows).toEqual([
      ['study.config', 'doubt', '1', '0'],
      ['study.config', 'enableSerialNumber', false, true],
      ['study.config', 'serialPrefix', '', 'LSS-'],
      ['study.config', 'serialDigits', 4, 3],
      ['study.config', 'enableSerialNumber', true, false],
      ['study.config', 'followTriggers', [], [trigger]],
      ['study.config', 'multiDisease', false, true],
      ['study.disease.create', 'CSM', null, { diseaseName: '颈椎病', diseaseCode: 'CSM', crfIds: [] }],
      [
        'study.disease.update',
        'CSM',
        { diseaseName: '颈椎病', diseaseCode: 'CSM', crfIds: [] },
        { diseaseName: '脊髓型颈椎病', diseaseCode: 'CSM', crfIds: [] },
      ],
      ['study.disease.delete', 'CSM', { diseaseName: '脊髓型颈椎病', diseaseCode: 'CSM', crfIds: [] }, null],
    ]);
    const report = await verifyAuditChains(t.db);
    expect(report.ok).toBe(true);
    expect(report.studies.find((s) => s.studyId === studyId)!.rows).toBe(rows.length + 1);
  });

  it('a refused change writes no audit row and changes nothing', async () => {
    const studyId = await createStudy('AUD04');
    const before = await lastId(studyId);
    const res = await t.call(admin, 'PUT', '/api/v2/business/study/follow_trigger', {
      studyId,
      triggers: [{ enabled: true, crfId: 999999, itemName: 'x', offsetDays: 1 }],
    });
    expect(res.status).toBe(400);
    expect(await rowsAfter(studyId, before)).toEqual([]);
    expect(
      (await t.call(admin, 'GET', `/api/v2/business/study/follow_trigger?studyId=${studyId}`)).body.data.triggers,
    ).toEqual([]);
  });

  it('STUDY-15/STUDY-16/STUDY-17: study roles, staff and CRF uploads and deletions are audited with what changed', async () => {
    const studyId = await createStudy('AUD06');
    const role = await t.call(admin, 'POST', '/api/system/role', {
      roleName: '审计测试',
      roleKey: 'aud_t',
      menuIds: [],
    });
    const created = await t.call(admin, 'POST', '/api/system/user', {
      userName: '13100000066',
      password: 'Passw0rd',
      name: '研究护士甲',
      deptId: 1,
      roleIds: [role.body.data.roleId],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const nurseId = created.body.data.userId as number;
    const before = await lastId(studyId);

    const crf = await t.call(admin, 'POST', '/api/system/crf', {
      studyId,
      definition: {
        title: '生命体征',
        option: {},
        children: [{ name: 'sbp', title: '收缩压', type: 'int', option: {}, children: [] }],
      },
    });
    expect(crf.status, JSON.stringify(crf.body)).toBe(200);
    const crfId = crf.body.data.crfs[0].id as number;
    const studyRole = await t.call(admin, 'POST', '/api/system/studyRole', {
      studyId,
      roleName: '研究护士',
      permissions: ['btn:business.crf.save'],
    });
    expect(studyRole.status, JSON.stringify(studyRole.body)).toBe(200);
    const roleId = studyRole.body.data.id as number;
    expect(
      (
        await t.call(admin, 'PUT', '/api/system/studyRole', {
          id: roleId,
          roleName: '研究护士',
          permissions: ['btn:business.crf.save', `crf:${crfId}:view`],
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await t.call(admin, 'POST', '/api/business/study_personnel', {
          studyId,
          userIds: [nurseId],
          studyRoleId: roleId,
          deptId: 1,
        })
      ).status,
    ).toBe(200);
    const member = (
      await t.call(admin, 'GET', `/api/business/study_personnel/list?studyId=${studyId}`)
    ).body.data.list.find((m: { userId: number }) => m.userId === nurseId);
    expect((await t.call(admin, 'DELETE', `/api/business/study_personnel?id=${member.id}`)).status).toBe(200);
    expect((await t.call(admin, 'DELETE', `/api/system/studyRole?id=${roleId}`)).status).toBe(200);
    expect((await t.call(admin, 'DELETE', `/api/system/crf?studyId=${studyId}&crfId=${crfId}`)).status).toBe(200);

    const rows = await rowsAfter(studyId, before);
    expect(rows.map((r) => [r.action, r.itemName])).toEqual([
      ['study.crf.upload', '生命体征'],
      ['study.role.create', `studyRole:${roleId}`],
      ['study.role.update', `studyRole:${roleId}`],
      ['study.personnel.add', `user:${nurseId}`],
      ['study.personnel.remove', `user:${nurseId}`],
      ['study.role.delete', `studyRole:${roleId}`],
      ['study.crf.delete', '生命体征'],
    ]);
    expect(rows[0]).toMatchObject({
      crfId,
      crfVersion: 1,
      newValue: { title: '生命体征', version: 1, source: 'json' },
    });
    expect((rows[0]!.newValue as { definitionSha256: string }).definitionSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[2]).toMatchObject({
      oldValue: { permissions: ['btn:business.crf.save'] },
      newValue: { permissions: ['btn:business.crf.save', `crf:${crfId}:view`] },
    });
    expect(rows[3]).toMatchObject({ oldValue: null, newValue: { userId: nurseId, studyRoleId: roleId, deptId: 1 } });
    expect(rows[4]).toMatchObject({ oldValue: { userId: nurseId, studyRoleId: roleId }, newValue: null });
    expect((await verifyAuditChains(t.db)).ok).toBe(true);
  });

  it('STUDY-19: the visit plan (stages and their forms) is audited', async () => {
    const studyId = await createStudy('AUD07');
    const crf = await t.call(admin, 'POST', '/api/system/crf', {
      studyId,
      definition: {
        title: '随访',
        option: {},
        children: [{ name: 'note', title: '备注', type: 'text', option: {}, children: [] }],
      },
    });
    const crfId = crf.body.data.crfs[0].id as number;
    const before = await lastId(studyId);
    const stage = await t.call(admin, 'POST', '/api/business/crf_menu/crf_stage', {
      studyId,
      name: '术后随访',
      orderNum: 1,
    });
    expect(stage.status, JSON.stringify(stage.body)).toBe(200);
    const stageId = stage.body.data.id as number;
    expect(
      (
        await t.call(admin, 'PUT', '/api/business/crf_menu/crf_stage', {
          id: stageId,
          name: '术后3月随访',
          orderNum: 1,
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await t.call(admin, 'POST', '/api/business/crf_menu/crf_stage/crf/import', {
          crfStageId: stageId,
          crfIds: [crfId],
          repeat: 0,
        })
      ).status,
    ).toBe(200);
    expect(
      (await t.call(admin, 'PUT', '/api/business/crf_menu/crf_stage/crf', { crfStageId: stageId, crfId, repeat: 1 }))
        .status,
    ).toBe(200);
    expect(
      (await t.call(admin, 'DELETE', `/api/business/crf_menu/crf_stage/crf?crfStageId=${stageId}&crfId=${crfId}`))
        .status,
    ).toBe(200);
    expect((await t.call(admin, 'DELETE', `/api/business/crf_menu/crf_stage?id=${stageId}`)).status).toBe(200);

    const rows = (await rowsAfter(studyId, before)).map((r) => [r.action, r.itemName, r.crfId, r.oldValue, r.newValue]);
    const item = `stage:${stageId}`;
    expect(rows).toEqual([
      ['study.stage.create', item, null, null, { name: '术后随访', parentId: 0, orderNum: 1 }],
      [
        'study.stage.update',
        item,
        null,
        { name: '术后随访', parentId: 0, orderNum: 1 },
        { name: '术后3月随访', parentId: 0, orderNum: 1 },
      ],
      ['study.stage.crf.add', item, crfId, null, { repeat: 0, orderNum: 1 }],
      ['study.stage.crf.update', item, crfId, { repeat: 0, orderNum: 1 }, { repeat: 1, orderNum: 1 }],
      ['study.stage.crf.remove', item, crfId, { repeat: 1, orderNum: 1 }, null],
      ['study.stage.delete', item, null, { name: '术后3月随访', parentId: 0, orderNum: 1 }, null],
    ]);
  });

  it('deleting a study is audited', async () => {
    const studyId = await createStudy('AUD05');
    expect((await t.call(admin, 'DELETE', `/api/business/study/${studyId}`)).status).toBe(200);
    const rows = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, studyId), inArray(auditEvents.action, ['study.delete'])))
      .orderBy(asc(auditEvents.id));
    expect(rows).toHaveLength(1);
  });
});
