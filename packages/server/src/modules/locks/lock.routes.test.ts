import { and, desc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonKey, lockMessage, STUDY_FROZEN_MSG } from '@ecrf/core';
import { auditChainHeads, auditEvents, crfDataRecords, studyLocks } from '../../db/schema/index.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { openTwoSiteStudy, type TwoSiteStudy } from '../../test/two-sites.js';
import { chainRows, verifyAuditChains } from '../audit/audit-chain.js';
import { lockPoints, lockPointsOk, lockPointsText } from './lock-points.js';

let t: TestApp;
let s: TwoSiteStudy;
/** Patient A's 生命体征 record. */
let recordA: number;
/** Patient B's. */
let recordB: number;

const LOCK = '/api/business/lock';
const put = (token: string, body: object) => t.call(token, 'PUT', LOCK, { studyId: s.studyId, ...body });
const list = async (token: string, path = LOCK) => {
  const res = await t.call(token, 'GET', `${path}?studyId=${s.studyId}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as Array<Record<string, any>>;
};
const lastAudit = async () =>
  (await chainRows(t.db, eq(auditEvents.studyId, s.studyId))).at(-1) as Awaited<ReturnType<typeof chainRows>>[number];

async function saveVitals(subjectRecordId: number) {
  const res = await t.call(s.admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId,
    crfId: s.crfIds['生命体征'],
    version: 0,
    values: { sbp: '130', dbp: '80', hr: '70' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.crfDataRecordId as number;
}

beforeAll(async () => {
  t = await createTestApp();
  s = await openTwoSiteStudy(t);
  recordA = await saveVitals(s.patientA.subjectRecordId);
  recordB = await saveVitals(s.patientB.subjectRecordId);
});
afterAll(() => t.close());

describe('setting and lifting locks', () => {
  it('needs 锁定/解锁 and a reason; every member reads the list', async () => {
    const reader = await addStudyMember(t, s.admin, s.studyId, '13700000011', {
      permissions: [buttonKey('business.subject.allSites')],
    });
    const refused = await put(reader, { scope: 'study', locked: true, reason: '数据清理完成' });
    expect(refused.status).toBe(403);
    for (const reason of [undefined, '', '   ']) {
      const res = await put(s.admin, { scope: 'study', locked: true, ...(reason === undefined ? {} : { reason }) });
      expect(res.status).toBe(400);
      expect(res.body.msg).toBe('请填写原因');
    }
    const noTarget = await put(s.admin, { scope: 'subject', locked: true, reason: '核查完成' });
    expect(noTarget.status).toBe(400);
    expect(await list(reader)).toEqual([]);
    expect(await t.db.select().from(studyLocks)).toEqual([]);
  });

  it('locks each scope once, names the target, refuses a second lock and an unlock of what is not locked', async () => {
    const before = (await lastAudit()).id;
    const set = async (scope: string, targetId: number | undefined, reason: string) => {
      const res = await put(s.admin, { scope, targetId, locked: true, reason });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.msg).toBe('锁定成功');
      return res.body.data.id as number;
    };
    await set('record', recordA, '表单核查完成');
    await set('subject', s.patientA.subjectRecordId, '病例核查完成');
    await set('site', s.siteB, '乙中心关闭');
    const again = await put(s.admin, { scope: 'record', targetId: recordA, locked: true, reason: '再次' });
    expect(again.status).toBe(400);
    expect(again.body.msg).toBe('已锁定');
    const notLocked = await put(s.admin, { scope: 'record', targetId: recordB, locked: false, reason: '解锁' });
    expect(notLocked.status).toBe(400);
    expect(notLocked.body.msg).toBe('未锁定');

    const live = await list(s.monitor.token);
    expect(live.map((l) => [l.scope, l.targetName])).toEqual([
      ['site', '乙中心'],
      ['subject', s.patientA.identificationCode],
      ['record', '生命体征'],
    ]);
    const at = t.clock().toISOString();
    expect(live[2]).toMatchObject({
      scopeName: '表单锁定',
      targetId: recordA,
      subjectRecordId: s.patientA.subjectRecordId,
      identificationCode: s.patientA.identificationCode,
      crfId: s.crfIds['生命体征'],
      lockedByName: '系统管理员',
      lockedAt: at,
      reason: '表单核查完成',
      message: lockMessage({ scope: 'record', lockedByName: '系统管理员', lockedAt: at, reason: '' }, 'Asia/Shanghai'),
    });
    expect(live[2]!.message).toBe('该表单已锁定（系统管理员 2026-11-22），如需修改请先解锁');

    // One audit row each on the study's chain: what was locked, why, on the patient's trail when it is a patient's.
    const rows = (await chainRows(t.db, eq(auditEvents.studyId, s.studyId))).filter((r) => r.id > before);
    expect(rows.map((r) => [r.action, r.newValue, r.reason, r.subjectRecordId, r.crfDataRecordId])).toEqual([
      ['lock.set', { scope: 'record', targetId: recordA }, '表单核查完成', s.patientA.subjectRecordId, recordA],
      [
        'lock.set',
        { scope: 'subject', targetId: s.patientA.subjectRecordId },
        '病例核查完成',
        s.patientA.subjectRecordId,
        null,
      ],
      ['lock.set', { scope: 'site', targetId: s.siteB }, '乙中心关闭', null, null],
    ]);

    const lifted = await put(s.admin, { scope: 'record', targetId: recordA, locked: false, reason: '更正录入错误' });
    expect(lifted.status).toBe(200);
    expect(lifted.body.msg).toBe('解锁成功');
    expect(await lastAudit()).toMatchObject({
      action: 'lock.release',
      reason: '更正录入错误',
      newValue: { scope: 'record', targetId: recordA },
    });
    expect((await list(s.admin)).map((l) => l.scope)).toEqual(['site', 'subject']);
    for (const [scope, targetId] of [
      ['subject', s.patientA.subjectRecordId],
      ['site', s.siteB],
    ] as const) {
      expect((await put(s.admin, { scope, targetId, locked: false, reason: '复核结束' })).status).toBe(200);
    }
  });

  it('the trail reads the locks in words: the scope, a site by its name, the reason', async () => {
    const trail = await t.call(
      s.admin,
      'GET',
      `/api/business/subjectRecord/operates?subjectRecordId=${s.patientA.subjectRecordId}&pageNum=1&pageSize=50`,
    );
    expect(trail.status).toBe(200);
    const casebookLock = trail.body.data.list.find((r: { action: string }) => r.action === 'lock.set');
    expect(casebookLock).toMatchObject({ actionName: '锁定', itemTitle: '病例锁定', reason: '病例核查完成' });
    const csv = await t.app.inject({
      method: 'GET',
      url: `/api/business/audit/export?studyId=${s.studyId}`,
      headers: { authorization: `Bearer ${s.admin}` },
    });
    expect(csv.statusCode).toBe(200);
    const siteRow = csv.body.split('\r\n').find((line) => line.includes('乙中心关闭'))!;
    expect(siteRow).toContain(',锁定,');
    expect(siteRow).toContain('中心锁定');
    expect(siteRow).toContain('乙中心');
  });

  it('a target must be of the study: another study’s casebook, an unknown form record or department answer 404', async () => {
    const other = await t.call(s.admin, 'POST', '/api/business/study', {
      studyName: '另一项研究',
      studyCode: 'LOCKOTHER',
      diseases: [{ diseaseName: '腰椎管狭窄', diseaseCode: 'LSS' }],
    });
    const otherStudyId = other.body.data.id as number;
    const stranger = await t.call(s.admin, 'POST', '/api/business/subject', {
      studyId: otherStudyId,
      subjectName: '他院患者',
      identificationCode: 'OTHER-001',
      gender: 1,
      birth: '1960-05-01',
      diseaseCode: 'LSS',
    });
    expect(stranger.status, JSON.stringify(stranger.body)).toBe(200);
    const cases: Array<[string, number, string]> = [
      ['subject', stranger.body.data.subjectRecordId, '患者不存在'],
      ['record', 999_999, '表单记录不存在'],
      ['site', 999_999, '中心不存在'],
    ];
    for (const [scope, targetId, msg] of cases) {
      const res = await put(s.admin, { scope, targetId, locked: true, reason: '试试' });
      expect(res.status, scope).toBe(404);
      expect(res.body.msg).toBe(msg);
    }
  });

  it('a site-scoped member locks only what is at their sites and sees only those locks and the study’s', async () => {
    const own = await put(s.nurseA.token, {
      scope: 'subject',
      targetId: s.patientA.subjectRecordId,
      locked: true,
      reason: '甲中心核查',
    });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    const otherPatient = await put(s.nurseA.token, {
      scope: 'record',
      targetId: recordB,
      locked: true,
      reason: '越权',
    });
    expect(otherPatient.status).toBe(404);
    expect(otherPatient.body.msg).toBe('患者不存在');
    const otherSite = await put(s.nurseA.token, { scope: 'site', targetId: s.siteB, locked: true, reason: '越权' });
    expect(otherSite.status).toBe(404);
    const whole = await put(s.nurseA.token, { scope: 'study', locked: true, reason: '越权' });
    expect(whole.status).toBe(403);
    expect(
      (await put(s.nurseA.token, { scope: 'site', targetId: s.siteA, locked: true, reason: '甲中心关闭' })).status,
    ).toBe(200);

    // The manager locks the other site's patient, and the study.
    expect((await put(s.admin, { scope: 'record', targetId: recordB, locked: true, reason: '乙院核查' })).status).toBe(
      200,
    );
    expect((await put(s.admin, { scope: 'site', targetId: s.siteB, locked: true, reason: '乙中心关闭' })).status).toBe(
      200,
    );
    const seen = (token: string) => list(token).then((l) => l.map((x) => `${x.scope}:${x.targetId}`).sort());
    expect(await seen(s.nurseA.token)).toEqual([`site:${s.siteA}`, `subject:${s.patientA.subjectRecordId}`].sort());
    expect(await seen(s.nurseB.token)).toEqual([`record:${recordB}`, `site:${s.siteB}`].sort());
    expect(await seen(s.monitor.token)).toHaveLength(4);
    // Lifting is scoped the same way.
    const liftOther = await put(s.nurseA.token, { scope: 'record', targetId: recordB, locked: false, reason: '越权' });
    expect(liftOther.status).toBe(404);
    for (const [token, scope, targetId] of [
      [s.nurseA.token, 'subject', s.patientA.subjectRecordId],
      [s.nurseA.token, 'site', s.siteA],
      [s.nurseB.token, 'record', recordB],
      [s.admin, 'site', s.siteB],
    ] as const) {
      expect((await put(token, { scope, targetId, locked: false, reason: '结束' })).status).toBe(200);
    }
    expect(await list(s.admin)).toEqual([]);
  });
});

describe('a study lock and the audit chain', () => {
  it('records the chain head after its own audit row; audit:verify prints the point and that nothing changed while locked', async () => {
    const res = await put(s.admin, { scope: 'study', locked: true, reason: '数据库锁定，进入统计分析' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [lock] = await t.db.select().from(studyLocks).where(eq(studyLocks.id, res.body.data.id));
    const setRow = await lastAudit();
    expect(setRow).toMatchObject({
      action: 'lock.set',
      reason: '数据库锁定，进入统计分析',
      newValue: { scope: 'study', targetId: 0 },
    });
    expect(lock!.chainHead).toBe(setRow.hash);
    const [head] = await t.db.select().from(auditChainHeads).where(eq(auditChainHeads.studyId, s.studyId));
    expect(head!.hash).toBe(lock!.chainHead);

    // A save while locked is refused and writes nothing on the chain.
    const refused = await t.call(s.admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId: s.patientA.subjectRecordId,
      crfId: s.crfIds['生命体征'],
      crfDataRecordId: recordA,
      version: 1,
      values: { sbp: '131', dbp: '80', hr: '70' },
    });
    expect(refused.status).toBe(423);
    expect(refused.body.msg).toBe('该项目数据库已锁定（系统管理员 2026-11-22），如需修改请先解锁');
    expect(refused.body.data.lock).toMatchObject({ scope: 'study', reason: '数据库锁定，进入统计分析' });
    expect((await lastAudit()).id).toBe(setRow.id);

    let report = await verifyAuditChains(t.db);
    let points = await lockPoints(t.db, report);
    expect(points).toEqual([
      expect.objectContaining({
        lockId: lock!.id,
        studyId: s.studyId,
        chainHead: setRow.hash,
        rowId: setRow.id,
        state: 'ok',
        changesWhileLocked: 0,
        unlockedAt: null,
      }),
    ]);
    expect(lockPointsOk(points)).toBe(true);
    const text = lockPointsText(points);
    expect(text).toContain(
      `study ${s.studyId} lock ${lock!.id}: locked ${setRow.createdAt.toISOString()} by 系统管理员`,
    );
    expect(text).toContain(`chain head ${setRow.hash} at row ${setRow.id}: OK`);
    expect(text).toContain('0 patient-data rows after the lock point; still locked');

    t.clock.advance(60_000);
    expect((await put(s.admin, { scope: 'study', locked: false, reason: '补录缺失数据' })).status).toBe(200);
    const saved = await t.call(s.admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId: s.patientA.subjectRecordId,
      crfId: s.crfIds['生命体征'],
      crfDataRecordId: recordA,
      version: 1,
      values: { sbp: '131', dbp: '80', hr: '70' },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    // Changes after the release are not changes while locked.
    report = await verifyAuditChains(t.db);
    points = await lockPoints(t.db, report);
    expect(points[0]).toMatchObject({ state: 'ok', changesWhileLocked: 0, unlockedByName: '系统管理员' });
    expect(lockPointsText(points)).toContain('released ');

    // History: released locks with who lifted them and why, the study lock's chain head.
    const history = await list(s.admin, `${LOCK}/history`);
    expect(history[0]).toMatchObject({
      scope: 'study',
      chainHead: setRow.hash,
      unlockedByName: '系统管理员',
      unlockReason: '补录缺失数据',
      unlockedAt: t.clock().toISOString(),
    });
    expect(history.length).toBeGreaterThan(5);
    const nurseHistory = await list(s.nurseA.token, `${LOCK}/history`);
    expect(nurseHistory.some((l) => l.scope === 'record' && l.targetId === recordB)).toBe(false);
    expect(nurseHistory.some((l) => l.scope === 'study')).toBe(true);
  });

  it('a lock point whose row was rewritten, or a patient-data row inside a locked stretch, fails the check', async () => {
    const res = await put(s.admin, { scope: 'study', locked: true, reason: '第二次锁定' });
    const lockId = res.body.data.id as number;
    const setRow = await lastAudit();
    // A row written around the gate (a console) while locked: counted.
    await t.db.insert(auditEvents).values({
      studyId: s.studyId,
      subjectRecordId: s.patientA.subjectRecordId,
      action: 'item.update',
      userId: 1,
      userName: 'console',
      createdAt: t.clock(),
    });
    let point = (await lockPoints(t.db, await verifyAuditChains(t.db))).find((p) => p.lockId === lockId)!;
    expect(point.changesWhileLocked).toBe(1);
    await t.asOwner((owner) =>
      owner.transaction(async (tx) => {
        await tx.execute(sql`alter table audit_events disable trigger audit_events_no_update_delete`);
        await tx.execute(sql`update audit_events set reason = '改过的原因' where id = ${setRow.id}`);
        await tx.execute(sql`alter table audit_events enable trigger audit_events_no_update_delete`);
      }),
    );
    const points = await lockPoints(t.db, await verifyAuditChains(t.db));
    point = points.find((p) => p.lockId === lockId)!;
    expect(point.state).toBe('altered');
    expect(lockPointsOk(points)).toBe(false);
    expect(lockPointsText(points)).toContain('ALTERED');
    await t.asOwner((owner) =>
      owner.transaction(async (tx) => {
        await tx.execute(sql`alter table audit_events disable trigger audit_events_no_update_delete`);
        await tx.execute(sql`update audit_events set reason = '第二次锁定' where id = ${setRow.id}`);
        await tx.execute(sql`delete from audit_events where user_name = 'console'`);
        await tx.execute(sql`alter table audit_events enable trigger audit_events_no_update_delete`);
      }),
    );
    expect((await put(s.admin, { scope: 'study', locked: false, reason: '结束' })).status).toBe(200);
  });
});

describe('a finished study (已结束) is frozen until reopened with a reason', () => {
  it('finishing needs no reason and is audited; reopening needs one and is audited as study.reopen', async () => {
    const finish = await t.call(s.admin, 'PUT', '/api/business/study', { id: s.studyId, status: 1 });
    expect(finish.status, JSON.stringify(finish.body)).toBe(200);
    const [finished] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, s.studyId), eq(auditEvents.action, 'study.config')))
      .orderBy(desc(auditEvents.id))
      .limit(1);
    expect(finished).toMatchObject({ itemName: 'status', oldValue: 0, newValue: 1 });

    const [record] = await t.db.select().from(crfDataRecords).where(eq(crfDataRecords.id, recordA));
    const frozen = await t.call(s.admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId: s.patientA.subjectRecordId,
      crfId: s.crfIds['生命体征'],
      crfDataRecordId: recordA,
      version: record!.version,
      values: { sbp: '132', dbp: '80', hr: '70' },
    });
    expect(frozen.status).toBe(423);
    expect(frozen.body.msg).toBe(STUDY_FROZEN_MSG);

    for (const reason of [undefined, '  ']) {
      const res = await t.call(s.admin, 'PUT', '/api/business/study', { id: s.studyId, status: 0, reason });
      expect(res.status).toBe(400);
      expect(res.body.msg).toBe('重新开启项目需要填写原因');
    }
    // Other settings of a finished study change without a reason.
    expect((await t.call(s.admin, 'PUT', '/api/business/study', { id: s.studyId, principal: '李主任' })).status).toBe(
      200,
    );
    const reopened = await t.call(s.admin, 'PUT', '/api/business/study', {
      id: s.studyId,
      status: 0,
      reason: '伦理批准延长随访',
    });
    expect(reopened.status, JSON.stringify(reopened.body)).toBe(200);
    const rows = await t.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.studyId, s.studyId))
      .orderBy(desc(auditEvents.id))
      .limit(2);
    expect(rows.map((r) => [r.action, r.itemName, r.reason])).toEqual(
      expect.arrayContaining([
        ['study.reopen', null, '伦理批准延长随访'],
        ['study.config', 'status', '伦理批准延长随访'],
      ]),
    );
    const saved = await t.call(s.admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId: s.patientA.subjectRecordId,
      crfId: s.crfIds['生命体征'],
      crfDataRecordId: recordA,
      version: record!.version,
      values: { sbp: '132', dbp: '80', hr: '70' },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect((await verifyAuditChains(t.db)).ok).toBe(true);
  });
});
