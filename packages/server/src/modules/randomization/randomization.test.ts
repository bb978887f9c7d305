import ExcelJS from 'exceljs';
import { and, asc, desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  buttonKey,
  generateBlockList,
  parseUploadedList,
  verifyAllocationList,
  type RandomizationConfig,
} from '@ecrf/core';
import {
  auditEvents,
  randomizationConfigs,
  randomizationSlots,
  randomizationStrata,
  randomizations,
  randomizationUnblindings,
  studies,
  users,
} from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { simulate } from './randomization-config.service.js';

const BASE = '/api/business/randomization';
const key = (action: 'config' | 'subject' | 'unblinded' | 'emergency' | 'unblindAll') =>
  buttonKey(`business.randomization.${action}`);

/** Stratified permuted blocks of 4 and 6, 1:1, blinded, by site: site 1 (the administrator's) and another. */
const stratified = (extra: Partial<RandomizationConfig> = {}) => ({
  method: 'stratified_block',
  arms: [
    { code: 'A', label: '试验组', ratio: 1 },
    { code: 'B', label: '对照组', ratio: 1 },
  ],
  blinded: true,
  blockSizes: [4, 6],
  listLength: 100,
  factors: [
    {
      key: 'site',
      label: '中心',
      source: 'dept',
      weight: 1,
      levels: [
        { code: 'S1', label: '根机构', values: ['1'] },
        { code: 'S2', label: '其他中心', values: ['2'] },
      ],
    },
  ],
  ...extra,
});

async function outsider(t: TestApp, admin: string, userName: string) {
  const user = await t.call(admin, 'POST', '/api/system/user', {
    userName,
    password: 'Passw0rd',
    name: '外人',
    deptId: 1,
    roleIds: [1],
  });
  const userId = user.body.data.userId as number;
  const role = await t.call(admin, 'POST', '/api/system/role', {
    roleName: `外${userName}`,
    roleKey: `out${userName}`,
    menuIds: [],
  });
  await t.call(admin, 'PUT', '/api/system/user', {
    userId,
    userName,
    name: '外人',
    deptId: 1,
    roleIds: [role.body.data.roleId],
  });
  await t.db.update(users).set({ setPasswordMust: false }).where(eq(users.userId, userId));
  return (await t.login(userName, 'Passw0rd')).token;
}

async function enrol(t: TestApp, admin: string, studyId: number, name: string) {
  const res = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName: name,
    gender: 1,
    diseaseCode: 'LSS',
    deptId: 1,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { id: number; subjectRecordId: number };
}

async function readXlsx(buffer: Buffer) {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(buffer as unknown as ArrayBuffer);
  return book;
}

describe('randomization: calls × roles', () => {
  let t: TestApp;
  let admin: string;
  let studyId: number;
  let crfIds: Record<string, number>;
  const who = { configurer: '', nurse: '', statistician: '', doctor: '', manager: '', outsider: '' };
  const ids = { doctor: 0, manager: 0 };
  const patients: Array<{ id: number; subjectRecordId: number }> = [];

  const post = (token: string, path: string, body: unknown) => t.call(token, 'POST', `${BASE}${path}`, body);
  const put = (token: string, path: string, body: unknown) => t.call(token, 'PUT', `${BASE}${path}`, body);
  const get = (token: string, path: string) => t.call(token, 'GET', `${BASE}${path}`);
  const anonymous = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
    t.app.inject({ method, url, ...(payload ? { payload } : {}) }).then((r) => r.statusCode);

  beforeAll(async () => {
    t = await createTestApp();
    ({ admin, studyId, crfIds } = await openDemoStudy(t));
    who.configurer = await addStudyMember(t, admin, studyId, '13300000001', { permissions: [key('config')] });
    who.nurse = await addStudyMember(t, admin, studyId, '13300000002', { permissions: [key('subject')] });
    who.statistician = await addStudyMember(t, admin, studyId, '13300000003', {
      permissions: [key('unblinded'), buttonKey('business.subject.identifiers')],
    });
    who.doctor = await addStudyMember(t, admin, studyId, '13300000004', { permissions: [key('emergency')] });
    who.manager = await addStudyMember(t, admin, studyId, '13300000005', { permissions: [key('unblindAll')] });
    who.outsider = await outsider(t, admin, '13300000006');
    for (const [role, userName] of [
      ['doctor', '13300000004'],
      ['manager', '13300000005'],
    ] as const) {
      const [u] = await t.db.select({ userId: users.userId }).from(users).where(eq(users.userName, userName));
      ids[role] = u!.userId;
    }
    for (const name of ['张三', '李四', '王五', '赵六']) patients.push(await enrol(t, admin, studyId, name));
  });
  afterAll(() => t.close());

  it('RAND-04: before configuration the configuration call says so and the other reads are empty', async () => {
    const config = await get(who.nurse, `/config?studyId=${studyId}`);
    expect(config.status).toBe(200);
    expect(config.body.data).toMatchObject({ configured: false, locked: false, versions: [] });
    expect((await get(who.nurse, `/result?studyId=${studyId}`)).body.data).toMatchObject({ configured: false });
    expect((await get(who.nurse, `/subject?studyId=${studyId}&subjectId=${patients[0]!.id}`)).body.data).toBeNull();
    const refused = await post(who.nurse, '/subject', { studyId, subjectId: patients[0]!.id });
    expect(refused.status).toBe(400);
    expect(refused.body.msg).toBe('尚未配置随机化');
  });

  it('RAND-03: only the configurer saves a configuration; its seed is drawn by the server and its lists generated per stratum', async () => {
    const body = {
      studyId,
      config: stratified({ eligibility: { crfIds: [crfIds['人口学资料']!], items: [] } }),
    };
    expect(await anonymous('POST', BASE, body)).toBe(401);
    expect((await post(who.outsider, '', body)).status).toBe(403);
    expect((await post(who.nurse, '', body)).status).toBe(403);
    expect((await post(who.statistician, '', body)).status).toBe(403);
    const invalid = await post(who.configurer, '', { studyId, config: stratified({ blockSizes: [3] }) });
    expect(invalid.status).toBe(400);
    expect(invalid.body.msg).toContain('区组长度必须是分配比例之和的整数倍');

    const saved = await post(who.configurer, '', body);
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.data).toMatchObject({ version: 1, listSource: 'generated', strata: 2, slots: 200 });
    const [row] = await t.db.select().from(randomizationConfigs).where(eq(randomizationConfigs.studyId, studyId));
    expect(row!.seed).toMatch(/^[0-9a-f]{32}$/);
    // The stored list is exactly the core's list from the recorded seed: an auditor can regenerate it.
    const listed = await t.db
      .select()
      .from(randomizationSlots)
      .where(and(eq(randomizationSlots.configId, row!.id), eq(randomizationSlots.stratum, 'site=S1')))
      .orderBy(asc(randomizationSlots.slot));
    const expected = generateBlockList(row!.config as RandomizationConfig, row!.seed, 'site=S1');
    expect(listed.map((s) => s.arm)).toEqual(expected.map((s) => s.arm));
    const [trail] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, studyId), eq(auditEvents.action, 'randomization.config')));
    expect(JSON.stringify(trail!.newValue)).not.toContain(row!.seed);
  });

  it('RAND-04: config, factor/depts and list/config answer by role; block sizes and the list only to unblinded roles', async () => {
    const asNurse = (await get(who.nurse, `/config?studyId=${studyId}`)).body.data;
    expect(asNurse).toMatchObject({ configured: true, version: 1, method: 'stratified_block', armsVisible: false });
    expect(asNurse.config.blockSizes).toBeUndefined();
    expect((await get(who.statistician, `/config?studyId=${studyId}`)).body.data.config.blockSizes).toEqual([4, 6]);
    expect((await get(who.outsider, `/config?studyId=${studyId}`)).status).toBe(403);
    expect(await anonymous('GET', `${BASE}/config?studyId=${studyId}`)).toBe(401);

    const depts = await get(who.configurer, `/factor/depts?studyId=${studyId}`);
    expect(depts.status).toBe(200);
    expect(depts.body.data.map((d: { deptId: number }) => d.deptId)).toContain(1);
    expect((await get(who.outsider, `/factor/depts?studyId=${studyId}`)).status).toBe(403);

    for (const token of [who.nurse, who.configurer, who.doctor, who.manager, who.outsider]) {
      expect((await get(token, `/list/config?studyId=${studyId}`)).status).toBe(403);
    }
    const list = await get(who.statistician, `/list/config?studyId=${studyId}&stratum=site%3DS1&pageNum=2&pageSize=20`);
    expect(list.status).toBe(200);
    expect(list.body.data.total).toBe(100);
    expect(list.body.data.list).toHaveLength(20);
    expect(list.body.data.list[0]).toMatchObject({ stratum: 'site=S1', stratumLabel: '根机构', slot: 21, used: false });
    expect(list.body.data.seed).toMatch(/^[0-9a-f]{32}$/);
  });

  it('RAND-05: a patient whose required forms are not submitted is refused, and nothing is written', async () => {
    const refused = await post(who.nurse, '/subject', { studyId, subjectId: patients[0]!.id });
    expect(refused.status).toBe(400);
    expect(refused.body.msg).toBe('未满足随机条件：表单“人口学资料”未提交');
    expect(await t.db.select().from(randomizations)).toEqual([]);
    // Nobody is randomized yet: a new version needs no reason.
    const saved = await post(who.configurer, '', { studyId, config: stratified() });
    expect(saved.body.data.version).toBe(2);
  });

  it('RAND-05: the nurse randomizes and gets a number and a kit code, not the arm; a second call is refused (409)', async () => {
    const p = patients[0]!;
    expect(await anonymous('POST', `${BASE}/subject`, { studyId, subjectId: p.id })).toBe(401);
    expect((await post(who.outsider, '/subject', { studyId, subjectId: p.id })).status).toBe(403);
    expect((await post(who.configurer, '/subject', { studyId, subjectId: p.id })).status).toBe(403);
    const res = await post(who.nurse, '/subject', { studyId, subjectId: p.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({
      randomizationNo: 'R0001',
      armVisible: false,
      arm: null,
      stratum: 'site=S1',
      emergencyUnblinded: false,
    });
    expect(res.body.data.kitCode).toMatch(/^[2-9A-Z]{10}$/);
    const again = await post(who.nurse, '/subject', { studyId, subjectId: p.id });
    expect(again.status).toBe(409);
    expect(again.body.msg).toBe('该患者已随机入组，随机结果不可更改');

    const [row] = await t.db.select().from(randomizations).where(eq(randomizations.subjectId, p.id));
    const [slot] = await t.db
      .select()
      .from(randomizationSlots)
      .where(
        and(
          eq(randomizationSlots.configId, row!.configId),
          eq(randomizationSlots.stratum, 'site=S1'),
          eq(randomizationSlots.slot, 1),
        ),
      );
    expect(row).toMatchObject({ slot: 1, arm: slot!.arm, kitCode: slot!.kitCode, factorLevels: { site: 'S1' } });
    const asStatistician = await get(who.statistician, `/subject?studyId=${studyId}&subjectId=${p.id}`);
    expect(asStatistician.body.data).toMatchObject({ arm: slot!.arm, armVisible: true });
    const asNurse = await get(who.nurse, `/subject?studyId=${studyId}&subjectId=${p.id}`);
    expect(asNurse.body.data).toMatchObject({ arm: null, kitCode: slot!.kitCode });
    // Audited like clinical data; the arm stays out of a trail every member reads while blinded.
    const [trail] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, studyId), eq(auditEvents.action, 'randomization.assign')));
    expect(trail).toMatchObject({ subjectRecordId: p.subjectRecordId, itemName: 'R0001' });
    expect(trail!.newValue).toMatchObject({ slot: 1, stratum: 'site=S1', factorLevels: { site: 'S1' } });
    expect(trail!.newValue).not.toHaveProperty('arm');
    expect((trail!.newValue as { allocationHmac: string }).allocationHmac).toMatch(/^[0-9a-f]{64}$/);
  });

  it('RAND-03: after the first randomization the configuration is locked: a new version needs a reason, audited', async () => {
    const locked = await post(who.configurer, '', { studyId, config: stratified() });
    expect(locked.status).toBe(409);
    expect(locked.body.msg).toBe('已有患者随机入组，随机化配置已锁定；保存新版本须填写修改原因');
    const saved = await post(who.configurer, '', { studyId, config: stratified(), reason: '新增中心' });
    expect(saved.status).toBe(200);
    expect(saved.body.data.version).toBe(3);
    const trail = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, studyId), eq(auditEvents.action, 'randomization.config')))
      .orderBy(asc(auditEvents.id));
    expect(trail.at(-1)!.reason).toBe('新增中心');
    const config = (await get(who.nurse, `/config?studyId=${studyId}`)).body.data;
    expect(config).toMatchObject({ locked: true, randomizedCount: 1, version: 3 });
    expect(config.versions[0]).toMatchObject({ version: 3, reason: '新增中心' });
    for (const p of patients.slice(1, 3)) {
      expect((await post(who.nurse, '/subject', { studyId, subjectId: p.id })).status).toBe(200);
    }
  });

  it('RAND-04: results and randomly_selected show arms and names only as the caller may see them', async () => {
    const asNurse = await get(who.nurse, `/randomly_selected?studyId=${studyId}&pageNum=1&pageSize=2`);
    expect(asNurse.status).toBe(200);
    expect(asNurse.body.data.total).toBe(3);
    expect(asNurse.body.data.list).toHaveLength(2);
    expect(asNurse.body.data.list[0]).toMatchObject({ randomizationNo: 'R0003', arm: null, subjectName: '王*' });
    const asStatistician = await get(who.statistician, `/randomly_selected?studyId=${studyId}`);
    expect(asStatistician.body.data.list[2]).toMatchObject({ randomizationNo: 'R0001', subjectName: '张三' });
    expect(asStatistician.body.data.list[2].arm).toMatch(/^[AB]$/);
    expect((await get(who.outsider, `/randomly_selected?studyId=${studyId}`)).status).toBe(403);

    const blind = (await get(who.nurse, `/result?studyId=${studyId}`)).body.data;
    expect(blind).toMatchObject({ total: 3, armsVisible: false, arms: null });
    expect(blind.strata.find((s: { stratum: string }) => s.stratum === 'site=S1')).toMatchObject({
      used: 3,
      arms: null,
    });
    const open = (await get(who.statistician, `/result?studyId=${studyId}`)).body.data;
    expect(open.arms.reduce((n: number, a: { count: number }) => n + a.count, 0)).toBe(3);
    expect(open.factorLevels.find((l: { level: string }) => l.level === 'S1').count).toBe(3);
    expect((await get(who.outsider, `/result?studyId=${studyId}`)).status).toBe(403);
  });

  it('RAND-06: emergency unblinding needs the permission, the password again and a reason; the arm goes to that user only', async () => {
    const p = patients[0]!;
    const body = { studyId, subjectId: p.id, password: 'Passw0rd', reason: '严重不良事件，需知晓用药' };
    expect(await anonymous('PUT', `${BASE}/unblind`, body)).toBe(401);
    for (const token of [who.nurse, who.statistician, who.manager, who.outsider]) {
      expect((await put(token, '/unblind', body)).status).toBe(403);
    }
    const wrong = await put(who.doctor, '/unblind', { ...body, password: 'wrong-password' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.msg).toBe('密码错误，揭盲未完成');
    const noReason = await put(who.doctor, '/unblind', { ...body, reason: ' ' });
    expect(noReason.status).toBe(400);
    expect(noReason.body.msg).toBe('请填写揭盲原因');
    expect(await t.db.select().from(randomizationUnblindings)).toEqual([]);

    const pushes = vi.spyOn(t.ctx.realtime, 'toUser');
    const res = await put(who.doctor, '/unblind', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [row] = await t.db.select().from(randomizations).where(eq(randomizations.subjectId, p.id));
    expect(res.body.data).toMatchObject({ arm: row!.arm, emergencyUnblinded: true });
    expect(row!.emergencyUnblindedBy).toBe(ids.doctor);
    expect(pushes).toHaveBeenCalledWith(
      ids.manager,
      'randomization.unblinded',
      expect.objectContaining({ studyId, subjectId: p.id }),
    );
    pushes.mockRestore();

    // Marked everywhere; the arm still hidden from the blinded nurse.
    const asNurse = (await get(who.nurse, `/subject?studyId=${studyId}&subjectId=${p.id}`)).body.data;
    expect(asNurse).toMatchObject({ emergencyUnblinded: true, arm: null });
    const subject = await t.call(admin, 'GET', `/api/business/subject/${p.id}`);
    expect(subject.body.data.emergencyUnblinded).toBe(true);
    const other = await t.call(admin, 'GET', `/api/business/subject/${patients[1]!.id}`);
    expect(other.body.data.emergencyUnblinded).toBe(false);
    const [trail] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, studyId), eq(auditEvents.action, 'randomization.unblind')));
    expect(trail).toMatchObject({ reason: '严重不良事件，需知晓用药', subjectRecordId: p.subjectRecordId });
    expect(trail!.newValue).not.toHaveProperty('arm');
  });

  it('RAND-07: exports are Excel downloads, audited; the allocation list only for unblinded roles', async () => {
    expect(await anonymous('POST', `${BASE}/export`, { studyId })).toBe(401);
    for (const token of [who.nurse, who.configurer, who.outsider]) {
      expect((await post(token, '/export', { studyId })).status).toBe(403);
    }
    const file = await t.app.inject({
      method: 'POST',
      url: `${BASE}/export`,
      headers: { authorization: `Bearer ${who.statistician}` },
      payload: { studyId },
    });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-disposition']).toContain('attachment');
    const list = (await readXlsx(file.rawPayload)).getWorksheet('随机分配表')!;
    expect(list.rowCount).toBe(1 + 200);
    // Saved as CSV, the sheet is what the core's upload reader and verifyAllocationList take: the auditor's check.
    const csv = list
      .getSheetValues()
      .slice(1)
      .map((r) => (r as unknown[]).slice(1).join(','))
      .join('\n');
    const [row] = await t.db
      .select()
      .from(randomizationConfigs)
      .where(eq(randomizationConfigs.studyId, studyId))
      .orderBy(desc(randomizationConfigs.version));
    const config = row!.config as RandomizationConfig;
    const parsed = parseUploadedList(csv, config);
    expect(parsed.ok).toBe(true);
    if (parsed.ok) {
      for (const [stratum, slots] of Object.entries(parsed.lists)) {
        expect(verifyAllocationList(config, row!.seed, stratum, slots)).toBeNull();
      }
    }

    const results = await t.app.inject({
      method: 'POST',
      url: `${BASE}/export/randomly_selected`,
      headers: { authorization: `Bearer ${who.nurse}` },
      payload: { studyId },
    });
    expect(results.statusCode).toBe(200);
    const sheet = (await readXlsx(results.rawPayload)).getWorksheet('随机结果')!;
    expect(sheet.rowCount).toBe(1 + 3);
    expect((sheet.getRow(1).values as unknown[]).includes('分组')).toBe(false);
    expect((await post(who.outsider, '/export/randomly_selected', { studyId })).status).toBe(403);
    const trail = await t.db.select().from(auditEvents).where(eq(auditEvents.studyId, studyId));
    expect(trail.find((e) => e.action === 'randomization.export')!.newValue).toEqual({ rows: 200 });
    expect(trail.find((e) => e.action === 'randomization.export_results')!.newValue).toEqual({ rows: 3 });
  });

  it('simulation runs the configured method with a seed of its own, for the configurer only', async () => {
    const res = await post(who.configurer, '/simulate', { studyId, patients: 40, runs: 20 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ patients: 40, runs: 20, method: 'stratified_block' });
    expect((await post(who.nurse, '/simulate', { studyId, patients: 40, runs: 20 })).status).toBe(403);
    expect((await post(who.configurer, '/simulate', { studyId, patients: 5000, runs: 1000 })).status).toBe(400);
  });

  it("a simulation can follow the study's own patients: every patient here is at the first site", async () => {
    const even = await post(who.configurer, '/simulate', { studyId, patients: 40, runs: 20 });
    const strata = (res: typeof even) =>
      Object.fromEntries(
        (res.body.data.strata as Array<{ stratum: string; patientsMean: number }>).map((s) => [
          s.stratum,
          s.patientsMean,
        ]),
      );
    expect(strata(even)['site=S2']).toBeGreaterThan(0);
    const observed = await post(who.configurer, '/simulate', { studyId, patients: 40, runs: 20, fromPatients: true });
    expect(observed.status, JSON.stringify(observed.body)).toBe(200);
    expect(strata(observed)).toMatchObject({ 'site=S1': 40 });
    expect(strata(observed)['site=S2'] ?? 0).toBe(0);
  });

  it('a large simulation runs in slices: the event loop serves other work before it ends', async () => {
    // Given its configuration the service starts computing at once; without slices it would finish
    // before the callback queued right after the call could run.
    let otherWorkRan = false;
    const simulation = simulate(t.ctx, {
      studyId,
      config: {
        method: 'block',
        arms: [
          { code: 'A', label: 'A', ratio: 1 },
          { code: 'B', label: 'B', ratio: 1 },
        ],
        blinded: true,
        blockSizes: [4],
        listLength: 100,
      },
      patients: 500,
      runs: 1000,
    }).then((result) => ({ result, otherWorkRanBefore: otherWorkRan }));
    setImmediate(() => {
      otherWorkRan = true;
    });
    const { result, otherWorkRanBefore } = await simulation;
    expect(result.runs).toBe(1000);
    expect(otherWorkRanBefore).toBe(true);
  });

  it('RAND-06: unblinding all needs the study-manager permission, the password and the study name typed; then every member sees arms', async () => {
    const [{ studyName }] = (await t.db
      .select({ studyName: studies.studyName })
      .from(studies)
      .where(eq(studies.studyId, studyId))) as [{ studyName: string }];
    const body = { studyId, password: 'Passw0rd', confirmText: studyName };
    for (const token of [who.nurse, who.doctor, who.statistician, who.outsider]) {
      expect((await put(token, '/unblind/all', body)).status).toBe(403);
    }
    expect(await anonymous('PUT', `${BASE}/unblind/all`, body)).toBe(401);
    const mistyped = await put(who.manager, '/unblind/all', { ...body, confirmText: '别的项目' });
    expect(mistyped.status).toBe(400);
    expect(mistyped.body.msg).toBe('确认文字与项目名称不一致');
    expect((await put(who.manager, '/unblind/all', { ...body, password: 'nope' })).body.msg).toBe(
      '密码错误，揭盲未完成',
    );
    const done = await put(who.manager, '/unblind/all', body);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect((await put(who.manager, '/unblind/all', body)).status).toBe(409);
    const asNurse = (await get(who.nurse, `/subject?studyId=${studyId}&subjectId=${patients[1]!.id}`)).body.data;
    expect(asNurse.arm).toMatch(/^[AB]$/);
    expect((await get(who.nurse, `/result?studyId=${studyId}`)).body.data.armsVisible).toBe(true);
    const [trail] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, studyId), eq(auditEvents.action, 'randomization.unblind_all')));
    expect(trail!.userId).toBe(ids.manager);
  });
});

describe('randomization: concurrency, uploaded lists, minimization', () => {
  let t: TestApp;
  let admin: string;
  let studyId: number;
  let demographics: number;
  beforeAll(async () => {
    t = await createTestApp();
    let crfIds: Record<string, number>;
    ({ admin, studyId, crfIds } = await openDemoStudy(t));
    demographics = crfIds['人口学资料']!;
  });
  afterAll(() => t.close());

  it('RAND-05: 64 simultaneous randomizations in one stratum take slots 1..64, each once, in number order', async () => {
    const saved = await t.call(admin, 'POST', BASE, { studyId, config: stratified() });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const subjects: number[] = [];
    for (let i = 0; i < 64; i++) subjects.push((await enrol(t, admin, studyId, `并发${i}`)).id);
    const answers = await Promise.all(
      subjects.map((subjectId) => t.call(admin, 'POST', `${BASE}/subject`, { studyId, subjectId })),
    );
    expect(answers.map((a) => a.status)).toEqual(subjects.map(() => 200));
    const rows = await t.db.select().from(randomizations).where(eq(randomizations.studyId, studyId));
    expect(rows).toHaveLength(64);
    expect(rows.map((r) => r.slot).sort((a, b) => a - b)).toEqual(Array.from({ length: 64 }, (_, i) => i + 1));
    // Number n took slot n: the study lock orders both.
    expect(rows.every((r) => r.randomizationNo === r.slot && r.stratum === 'site=S1')).toBe(true);
    const slots = await t.db
      .select()
      .from(randomizationSlots)
      .where(eq(randomizationSlots.stratum, 'site=S1'))
      .orderBy(asc(randomizationSlots.slot));
    for (const r of rows) expect(r.arm).toBe(slots[r.slot - 1]!.arm);
    const [counter] = await t.db
      .select()
      .from(randomizationStrata)
      .where(and(eq(randomizationStrata.studyId, studyId), eq(randomizationStrata.stratum, 'site=S1')));
    expect(counter!.used).toBe(64);
  }, 120_000);

  it('RAND-03: an uploaded allocation table (CSV) is used in order until it runs out', async () => {
    const config = { ...stratified(), method: 'block', factors: [], blockSizes: [4] };
    const bad = await t.call(admin, 'POST', BASE, {
      studyId,
      config,
      reason: '改用上传的分配表',
      listCsv: 'slot,arm\n1,C',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toBe('第 2 行：分组“C”不存在');
    const saved = await t.call(admin, 'POST', BASE, {
      studyId,
      config,
      reason: '改用上传的分配表',
      listCsv: 'slot,arm\n1,B\n2,B\n3,A\n4,A\n',
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.data).toMatchObject({ listSource: 'uploaded', slots: 4 });
    const arms: string[] = [];
    for (let i = 0; i < 4; i++) {
      const p = await enrol(t, admin, studyId, `上传${i}`);
      const res = await t.call(admin, 'POST', `${BASE}/subject`, { studyId, subjectId: p.id });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      arms.push(res.body.data.arm);
    }
    expect(arms).toEqual(['B', 'B', 'A', 'A']);
    const late = await enrol(t, admin, studyId, '上传5');
    const refused = await t.call(admin, 'POST', `${BASE}/subject`, { studyId, subjectId: late.id });
    expect(refused.status).toBe(409);
    expect(refused.body.msg).toBe('该分层的随机分配表已用完，请联系统计师追加');
  });

  it("RAND-05: minimization records each arm's imbalance score and how the arm was chosen; the blinded trail holds only their hash", async () => {
    const sex = {
      key: 'sex',
      label: '性别',
      source: 'item',
      crfId: demographics,
      itemName: 'sex',
      weight: 1,
      levels: [
        { code: 'M', label: '男', values: ['1'] },
        { code: 'F', label: '女', values: ['2'] },
      ],
    };
    const config = {
      ...stratified(),
      factors: [...stratified().factors, sex],
      method: 'minimization',
      blockSizes: [],
      minimization: { imbalance: 'range', p: 0.8 },
    };
    const saved = await t.call(admin, 'POST', BASE, { studyId, config, reason: '改为最小化随机' });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.data).toMatchObject({ listSource: 'none' });
    const p = await enrol(t, admin, studyId, '最小化');
    const form = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId: p.subjectRecordId,
      crfId: demographics,
      version: 0,
      values: { sex: '2', birth: '1960-01-01' },
    });
    expect(form.status, JSON.stringify(form.body)).toBe(200);
    const res = await t.call(admin, 'POST', `${BASE}/subject`, { studyId, subjectId: p.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ stratum: '', randomizationNo: 'R0069' });
    const [row] = await t.db.select().from(randomizations).where(eq(randomizations.subjectId, p.id));
    expect(Object.keys(row!.scores!).sort()).toEqual(['A', 'B']);
    expect(['minimum', 'random', 'tie']).toContain(row!.chosenBy);
    expect(row!.slot).toBe(1);
    const trail = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, studyId), eq(auditEvents.subjectRecordId, p.subjectRecordId)));
    const assign = trail.find((e) => e.action === 'randomization.assign')!;
    expect(assign.newValue).not.toHaveProperty('scores');
    expect(assign.newValue).toHaveProperty('allocationHmac');
    // Every member reads this row: a form's value is named by form and item, never written out; a site is.
    expect(assign.newValue).toMatchObject({
      factorLevels: { site: 'S1', sex: 'F' },
      factorValues: { site: '1', sex: { crfId: demographics, itemName: 'sex' } },
    });
  });
});
