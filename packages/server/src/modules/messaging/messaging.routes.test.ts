import { and, eq } from 'drizzle-orm';
import {
  buttonKey,
  DEFAULT_MESSAGE_RULES,
  MESSAGE_MSG,
  messageReportSchema,
  messageRowSchema,
  messageRulesSchema,
} from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  auditEvents,
  followRecordCrfs,
  followRecords,
  patientMessages,
  patientReportedCrfs,
  subjectRecords,
  subjects,
} from '../../db/schema/index.js';
import { contractData } from '../../test/contract.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { openTwoSiteStudy, type TwoSiteStudy } from '../../test/two-sites.js';
import { setMessageProviders } from './messaging-providers.js';
import { scheduleMessages } from './messaging-schedule.js';
import { runMessageSendJob } from './messaging-send.job.js';
import type { MessageProvider, SendOutcome } from './providers/provider.js';

/**
 * 患者提醒 (issue 38) through the HTTP API: the rules (templates checked, audited), the hourly schedule walked by the
 * test clock through a visit window (each reminder recorded once), quiet hours, a questionnaire invitation and its one
 * reminder, opt-out honoured and audited, retries of a failing provider and a refusal, site scope and 403.
 */
let t: TestApp;
let s: TwoSiteStudy;
let noKey: string;
let subjectA: number;
let subjectB: number;
let visitA: number;
let proCrf: number;

const BASE = '/api/business/messages';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const listSchema = z.object({ list: z.array(messageRowSchema), total: z.number() });

const list = async (token: string, query = '') =>
  contractData(listSchema, await t.call(token, 'GET', `${BASE}?studyId=${s.studyId}&pageSize=100${query}`)).list;
const tick = async () => {
  await scheduleMessages(t.ctx, t.clock());
  await runMessageSendJob(t.ctx);
};
const rowsOf = async (subjectId: number) =>
  t.db.select().from(patientMessages).where(eq(patientMessages.subjectId, subjectId)).orderBy(patientMessages.id);
const subjectOf = async (subjectRecordId: number) =>
  (await t.db.select().from(subjectRecords).where(eq(subjectRecords.id, subjectRecordId)))[0]!.subjectId;

const fakeProvider = (outcome: () => SendOutcome): MessageProvider => ({
  name: 'fake',
  channel: 'sms',
  ratePerSecond: 50,
  send: () => Promise.resolve(outcome()),
});

beforeAll(async () => {
  t = await createTestApp();
  s = await openTwoSiteStudy(t);
  noKey = await addStudyMember(t, s.admin, s.studyId, '13700000009', {
    permissions: [buttonKey('business.subject.allSites')],
  });
  await t.ctx.events.drain();
  subjectA = await subjectOf(s.patientA.subjectRecordId);
  subjectB = await subjectOf(s.patientB.subjectRecordId);
  await t.db.update(subjects).set({ mobile: '13812345678' }).where(eq(subjects.id, subjectA));
  await t.db.update(subjects).set({ mobile: null }).where(eq(subjects.id, subjectB));
  // Only the visits this test plants: the demo plan's own visits would add messages of their own.
  await t.db.delete(followRecordCrfs).where(eq(followRecordCrfs.studyId, s.studyId));
  await t.db.delete(followRecords).where(eq(followRecords.studyId, s.studyId));
  // Today is 2026-11-22 (16:00 in Shanghai). The visit's window is 11-26 … 11-28.
  const visit = (subjectId: number, subjectRecordId: number) => ({
    studyId: s.studyId,
    subjectId,
    subjectRecordId,
    visitName: '第1次随访',
    plannedDate: '2026-11-27',
    windowBefore: 1,
    windowAfter: 1,
  });
  const [a] = await t.db
    .insert(followRecords)
    .values(visit(subjectA, s.patientA.subjectRecordId))
    .returning({ id: followRecords.id });
  await t.db.insert(followRecords).values(visit(subjectB, s.patientB.subjectRecordId));
  visitA = a!.id;
  proCrf = Object.values(s.crfIds)[0]!;
  await t.db.insert(patientReportedCrfs).values({ studyId: s.studyId, crfId: proCrf });
  await t.db.insert(followRecordCrfs).values({ studyId: s.studyId, followRecordId: visitA, crfId: proCrf });
}, 120_000);

afterAll(async () => {
  setMessageProviders(null);
  await t?.close();
});

describe('患者提醒 rules', () => {
  it('any member reads the defaults; saving needs 患者提醒', async () => {
    const rules = contractData(messageRulesSchema, await t.call(noKey, 'GET', `${BASE}/rules?studyId=${s.studyId}`));
    expect(rules).toEqual(DEFAULT_MESSAGE_RULES);
    const refused = await t.call(noKey, 'PUT', `${BASE}/rules`, { studyId: s.studyId, ...rules, enabled: true });
    expect(refused.status).toBe(403);
  });

  it('a template naming an unknown variable is refused', async () => {
    const res = await t.call(s.nurseA.token, 'PUT', `${BASE}/rules`, {
      studyId: s.studyId,
      ...DEFAULT_MESSAGE_RULES,
      templates: { visit_before: '{patient}您好，{unknown}' },
    });
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe(MESSAGE_MSG.unknownVariable);
  });

  it('saving is audited as message.rules with old and new', async () => {
    const res = await t.call(s.nurseA.token, 'PUT', `${BASE}/rules`, {
      studyId: s.studyId,
      ...DEFAULT_MESSAGE_RULES,
      enabled: true,
      templates: { visit_overdue: '{patient}您好，{visit}已超窗，请联系研究团队。' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [row] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, s.studyId), eq(auditEvents.action, 'message.rules')));
    expect(row?.oldValue).toMatchObject({ enabled: false });
    expect(row?.newValue).toMatchObject({ enabled: true });
  });
});

describe('患者提醒 schedule and send', () => {
  it('before the reminder day nothing is due', async () => {
    await tick();
    expect(await rowsOf(subjectA)).toEqual([]);
  });

  it('the visit is reminded of once before its window (days before), sent through the dev provider', async () => {
    t.clock.advance(DAY); // 2026-11-23 16:00 Shanghai
    await tick();
    await tick();
    const rows = await rowsOf(subjectA);
    expect(rows.map((r) => [r.kind, r.state])).toEqual([['visit_before', 'delivered']]);
    expect(rows[0]!.recipient).toBe('138****5678');
    expect(rows[0]!.content).toContain('甲***您好');
    expect(rows[0]!.content).toContain('2026-11-26 至 2026-11-28');
    expect(rows[0]!.provider).toBe('dev');
    // A patient without a mobile gets a record saying why, never a send.
    const b = await rowsOf(subjectB);
    expect(b.map((r) => [r.kind, r.state, r.error])).toEqual([['visit_before', 'skipped', '未登记手机号']]);
  });

  it('quiet hours delay the first-day reminder and the questionnaire invitation until the morning', async () => {
    t.clock.advance(2 * DAY + 6 * HOUR); // 2026-11-25 22:00 Shanghai … the window opens at midnight
    t.clock.advance(2 * HOUR); // 2026-11-26 00:00 Shanghai: quiet
    await tick();
    const due = (await rowsOf(subjectA)).filter((r) => r.state === 'queued');
    expect(due.map((r) => r.kind).sort()).toEqual(['pro_invite', 'visit_first_day']);
    expect(due.map((r) => r.notBefore.toISOString())).toEqual(['2026-11-26T00:00:00.000Z', '2026-11-26T00:00:00.000Z']);
  });

  it('in the morning they go; each occasion once', async () => {
    t.clock.advance(8 * HOUR); // 08:00 Shanghai
    await tick();
    await tick();
    const rows = await rowsOf(subjectA);
    expect(rows.map((r) => [r.kind, r.state])).toEqual([
      ['visit_before', 'delivered'],
      ['visit_first_day', 'delivered'],
      ['pro_invite', 'delivered'],
    ]);
    expect(rows[2]!.content).toContain(`/meil/form/${proCrf}?studyId=${s.studyId}`);
  });

  it('the unanswered questionnaire is reminded once; after the window, the study template tells the overdue', async () => {
    t.clock.advance(3 * DAY); // 2026-11-29 08:00: invitation 3 days old, window closed 11-28
    await tick();
    t.clock.advance(DAY);
    await tick();
    const rows = await rowsOf(subjectA);
    expect(rows.map((r) => r.kind).sort()).toEqual([
      'pro_invite',
      'pro_remind',
      'visit_before',
      'visit_first_day',
      'visit_overdue',
    ]);
    expect(rows.every((r) => r.state === 'delivered')).toBe(true);
    const overdue = rows.find((r) => r.kind === 'visit_overdue')!;
    expect(overdue.content).toBe('甲***您好，第1次随访已超窗，请联系研究团队。');
    expect(overdue.templateKey).toBe('study:visit_overdue');
  });
});

describe('患者提醒 providers failing', () => {
  const queue = async (dedupeKey: string) => {
    const [row] = await t.db
      .insert(patientMessages)
      .values({
        studyId: s.studyId,
        subjectId: subjectA,
        kind: 'visit_before',
        channel: 'sms',
        recipient: '138****5678',
        followRecordId: visitA,
        dedupeKey,
        templateKey: 'default:visit_before',
        content: '测试',
        notBefore: t.clock(),
      })
      .returning({ id: patientMessages.id });
    return row!.id;
  };
  const stateOf = async (id: number) =>
    (await t.db.select().from(patientMessages).where(eq(patientMessages.id, id)))[0]!;

  it('a retryable failure is tried again after 1, 5 and 30 minutes, then fails after the 4th attempt', async () => {
    setMessageProviders({
      sms: fakeProvider(() => ({ ok: false, retryable: true, error: '网关超时', answer: { code: 'Timeout' } })),
    });
    const id = await queue('test:retry');
    await runMessageSendJob(t.ctx);
    let row = await stateOf(id);
    expect([row.state, row.attempts, row.notBefore.getTime() - t.clock().getTime()]).toEqual(['queued', 1, 60_000]);
    // Not before its time.
    await runMessageSendJob(t.ctx);
    expect((await stateOf(id)).attempts).toBe(1);
    for (const wait of [60_000, 5 * 60_000, 30 * 60_000]) {
      t.clock.advance(wait);
      await runMessageSendJob(t.ctx);
    }
    row = await stateOf(id);
    expect([row.state, row.attempts, row.error, row.provider]).toEqual(['failed', 4, '网关超时', 'fake']);
    expect(row.providerAnswer).toEqual({ code: 'Timeout' });
  });

  it('a refusal fails at once', async () => {
    setMessageProviders({
      sms: fakeProvider(() => ({ ok: false, retryable: false, error: '号码无效', answer: { code: 'InvalidNumber' } })),
    });
    const id = await queue('test:refused');
    await runMessageSendJob(t.ctx);
    const row = await stateOf(id);
    expect([row.state, row.attempts, row.error]).toEqual(['failed', 1, '号码无效']);
    setMessageProviders(null);
  });
});

describe('患者提醒 reads, scope and opt-out', () => {
  // The clock walked days past the sign-in tokens' lifetime: sign in again.
  const tok = { nurseA: '', nurseB: '', monitor: '', noKey: '' };
  beforeAll(async () => {
    tok.nurseA = (await t.login('13700000001', 'Passw0rd')).token;
    tok.nurseB = (await t.login('13700000002', 'Passw0rd')).token;
    tok.monitor = (await t.login('13700000003', 'Passw0rd')).token;
    tok.noKey = (await t.login('13700000009', 'Passw0rd')).token;
  });

  it('the list is under the site scope, names as the patient list shows them; no key is 403', async () => {
    const mine = await list(tok.nurseB);
    expect(mine.length).toBeGreaterThan(0);
    expect(new Set(mine.map((r) => r.subjectId))).toEqual(new Set([subjectB]));
    // The nurse holds 查看身份信息, so the name is clear, as in the patient list (masked without that key).
    expect(mine[0]!.subjectName).toBe('乙院患者');
    expect((await t.call(tok.noKey, 'GET', `${BASE}?studyId=${s.studyId}`)).status).toBe(403);
    expect((await t.call(tok.noKey, 'GET', `${BASE}/report?studyId=${s.studyId}`)).status).toBe(403);
    expect((await t.call(tok.noKey, 'GET', `${BASE}/outbox?studyId=${s.studyId}`)).status).toBe(403);
    const other = await t.call(tok.nurseB, 'GET', `${BASE}/opt-out?studyId=${s.studyId}&subjectId=${subjectA}`);
    expect(other.status).toBe(404);
  });

  it('the report counts by state and kind; the dev outbox is open', async () => {
    const report = contractData(
      messageReportSchema,
      await t.call(tok.monitor, 'GET', `${BASE}/report?studyId=${s.studyId}`),
    );
    expect(report.byState.delivered).toBe(5);
    expect(report.byState.failed).toBe(2);
    expect(report.byKind.find((k) => k.kind === 'pro_invite')!.byState).toEqual({ delivered: 1 });
    const outbox = await t.call(tok.monitor, 'GET', `${BASE}/outbox?studyId=${s.studyId}`);
    expect(outbox.status).toBe(200);
    expect(outbox.body.data.total).toBe(report.total);
  });

  it('an opt-out needs a reason, is audited, skips queued messages and stops new ones; opt-in restores', async () => {
    const noReason = await t.call(tok.nurseA, 'POST', `${BASE}/opt-out`, {
      studyId: s.studyId,
      subjectId: subjectA,
      reason: ' ',
    });
    expect(noReason.status).toBe(400);
    await t.db.update(subjects).set({ mobile: '13900001111' }).where(eq(subjects.id, subjectB));
    const queued = await t.db
      .insert(patientMessages)
      .values({
        studyId: s.studyId,
        subjectId: subjectA,
        kind: 'visit_before',
        channel: 'sms',
        recipient: '138****5678',
        dedupeKey: 'test:opt-out',
        templateKey: 'default:visit_before',
        content: '测试',
        notBefore: new Date(t.clock().getTime() + DAY),
      })
      .returning({ id: patientMessages.id });
    const res = await t.call(tok.nurseA, 'POST', `${BASE}/opt-out`, {
      studyId: s.studyId,
      subjectId: subjectA,
      reason: '患者电话要求不再接收短信',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ optedOut: true, source: 'staff' });
    const again = await t.call(tok.nurseA, 'POST', `${BASE}/opt-out`, {
      studyId: s.studyId,
      subjectId: subjectA,
      reason: '再次',
    });
    expect(again.body.msg).toBe(MESSAGE_MSG.alreadyOptedOut);
    const [row] = await t.db.select().from(patientMessages).where(eq(patientMessages.id, queued[0]!.id));
    expect([row!.state, row!.error]).toEqual(['skipped', '已退订']);
    const [audit] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, s.studyId), eq(auditEvents.action, 'message.opt_out')));
    expect(audit?.reason).toBe('患者电话要求不再接收短信');

    // A new visit of the opted-out patient: recorded as skipped, never sent.
    await t.db.insert(followRecords).values({
      studyId: s.studyId,
      subjectId: subjectA,
      subjectRecordId: s.patientA.subjectRecordId,
      visitName: '第2次随访',
      plannedDate: '2026-12-02',
    });
    await tick();
    const fresh = (await rowsOf(subjectA)).filter((r) => r.dedupeKey.startsWith('visit_') && r.createdAt >= t.clock());
    expect(fresh.length).toBeGreaterThan(0);
    expect(fresh.every((r) => r.state === 'skipped' && r.error === '已退订')).toBe(true);

    const back = await t.call(tok.nurseA, 'POST', `${BASE}/opt-in`, {
      studyId: s.studyId,
      subjectId: subjectA,
      reason: '患者同意恢复',
    });
    expect(back.body.data).toMatchObject({ optedOut: false });
    const optIn = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, s.studyId), eq(auditEvents.action, 'message.opt_in')));
    expect(optIn).toHaveLength(1);
  });
});

describe('患者提醒 the patient opts out', () => {
  const patientCall = async (token: string | null, method: string, url: string, payload?: unknown) => {
    const res = await t.app.inject({
      method: method as 'GET',
      url,
      headers: token ? { 'x-patient-token': token } : {},
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
    return { status: res.statusCode, body: res.json() as { code: number; msg: string; data: any } };
  };

  it('a bound patient reads and sets their 退订, audited as the patient; without a session 401', async () => {
    const admin = (await t.login()).token;
    const enrolled = await t.call(admin, 'POST', '/api/business/subject', {
      studyId: s.studyId,
      subjectName: '退订患者',
      gender: 0,
      diseaseCode: 'LSS',
    });
    const subjectId = enrolled.body.data.id as number;
    const code = (await t.call(admin, 'POST', '/api/business/wechat/bind-code', { studyId: s.studyId, subjectId })).body
      .data.code as string;
    const bound = await patientCall(null, 'POST', '/api/ignore/patient/bind', { studyId: s.studyId, code });
    expect(bound.status, JSON.stringify(bound.body)).toBe(200);
    const token = bound.body.data.token as string;

    expect((await patientCall(null, 'GET', '/api/ignore/patient/messages/opt-out')).status).toBe(401);
    expect((await patientCall(token, 'GET', '/api/ignore/patient/messages/opt-out')).body.data).toMatchObject({
      optedOut: false,
    });
    const out = await patientCall(token, 'POST', '/api/ignore/patient/messages/opt-out', {});
    expect(out.status, JSON.stringify(out.body)).toBe(200);
    expect(out.body.data).toMatchObject({ optedOut: true, source: 'patient' });
    // Again: still opted out, no second trail row.
    expect((await patientCall(token, 'POST', '/api/ignore/patient/messages/opt-out', {})).status).toBe(200);
    const rows = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, s.studyId), eq(auditEvents.action, 'message.opt_out')));
    const mine = rows.filter((r) => (r.newValue as { subjectId?: number }).subjectId === subjectId);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.userName).toContain('患者填写');
    const staffView = await t.call(admin, 'GET', `${BASE}/opt-out?studyId=${s.studyId}&subjectId=${subjectId}`);
    expect(staffView.body.data).toMatchObject({ optedOut: true, source: 'patient' });
  });
});
