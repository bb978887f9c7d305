import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditEvents,
  crfDataRecords,
  doubtMessages,
  doubts,
  outboxDeliveries,
  outboxEvents,
} from '../../db/schema/index.js';
import type { DeliveredEvent } from '../../shared/domain-events.js';
import { openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { SYSTEM_QUERIES } from './system-queries.subscriber.js';

let t: TestApp;
let admin: string;
let studyId: number;
let vitals: number;
/** Every event the services publish, as a subscriber sees it. */
const seen: DeliveredEvent[] = [];

beforeAll(async () => {
  t = await createTestApp();
  const demo = await openDemoStudy(t);
  ({ admin, studyId } = demo);
  vitals = demo.crfIds['生命体征']!;
  t.ctx.events.subscribe(
    'test.everything',
    ['subject.enrolled', 'record.saved', 'record.submitted', 'query.opened', 'query.answered', 'query.closed'],
    async (delivered) => void seen.push(delivered),
  );
});
afterAll(() => t.close());

async function enrol(subjectName: string) {
  const res = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName,
    gender: 1,
    diseaseCode: 'LSS',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { subjectId: res.body.data.id as number, subjectRecordId: res.body.data.subjectRecordId as number };
}

const save = (body: object) => t.call(admin, 'PUT', '/api/v3/business/crf', body);

const systemAudit = (crfDataRecordId: number) =>
  t.db
    .select()
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.crfDataRecordId, crfDataRecordId),
        inArray(auditEvents.action, ['doubt.system_open', 'doubt.system_close']),
      ),
    )
    .orderBy(auditEvents.id);

describe('system queries through the outbox subscriber', () => {
  it('QRY-05: a submit answers with the engine warnings; the subscriber raises the system queries after commit, each audited as 系统发起质疑 by 系统 with its item and text, shown so in 操作记录', async () => {
    const { subjectRecordId } = await enrol('系统审计');
    const submitted = await save({
      subjectRecordId,
      crfId: vitals,
      version: 0,
      values: { sbp: 190, dbp: 80, hr: 72 },
      submit: true,
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    // The answer carries what the engine found, whatever the subscriber has done yet.
    expect(submitted.body.data.warnings.map((w: { message: string }) => w.message)).toEqual([
      '收缩压≥180 mmHg，请核实',
    ]);
    const rid = submitted.body.data.crfDataRecordId as number;
    await t.ctx.events.drain();

    const raised = await t.db.select().from(doubts).where(eq(doubts.crfDataRecordId, rid)).orderBy(doubts.id);
    expect(raised.map((d) => [d.itemName, d.doubtDescription, d.doubtType, d.optionType, d.userName])).toEqual([
      ['sbp', '收缩压≥180 mmHg，请核实', 0, 0, '系统'],
      ['sbp', '收缩压高于参考范围，请核实', 0, 0, '系统'],
    ]);
    const trail = await systemAudit(rid);
    expect(trail.map((r) => [r.action, r.itemName, r.newValue, r.userName, r.userId])).toEqual([
      ['doubt.system_open', 'sbp', '收缩压≥180 mmHg，请核实', '系统', 0],
      ['doubt.system_open', 'sbp', '收缩压高于参考范围，请核实', '系统', 0],
    ]);
    expect(trail.every((r) => r.createdAt instanceof Date && r.hash !== null)).toBe(true);

    const operates = (
      await t.call(admin, 'GET', `/api/business/subjectRecord/operates?subjectRecordId=${subjectRecordId}&pageSize=50`)
    ).body.data.list as Array<{
      action: string;
      actionName: string;
      itemTitle: string;
      newText: string;
      userName: string;
    }>;
    expect(operates.filter((r) => r.action === 'doubt.system_open')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          actionName: '系统发起质疑',
          itemTitle: '收缩压',
          newText: '收缩压高于参考范围，请核实',
          userName: '系统',
        }),
      ]),
    );
  });

  it('QRY-05: a correction closes the system queries it resolves, audited as 系统关闭质疑 by 系统 with the reason 数据已修正，系统自动关闭; a repeated delivery changes nothing', async () => {
    const { subjectRecordId } = await enrol('系统关闭');
    const first = await save({
      subjectRecordId,
      crfId: vitals,
      version: 0,
      values: { sbp: 190, dbp: 80, hr: 130 },
      submit: true,
    });
    const rid = first.body.data.crfDataRecordId as number;
    // The queries are raised before the correction comes (a correction made first leaves nothing to raise).
    await t.ctx.events.drain();
    const corrected = await save({
      subjectRecordId,
      crfId: vitals,
      crfDataRecordId: rid,
      version: 1,
      values: { sbp: 135, dbp: 80, hr: 130 },
      reason: '更正血压',
    });
    expect(corrected.status, JSON.stringify(corrected.body)).toBe(200);
    await t.ctx.events.drain();

    const rows = await t.db.select().from(doubts).where(eq(doubts.crfDataRecordId, rid)).orderBy(doubts.id);
    expect(rows.map((d) => [d.itemName, d.optionType])).toEqual([
      ['sbp', 1],
      ['sbp', 1],
      ['hr', 0],
    ]);
    const closing = (await systemAudit(rid)).filter((r) => r.action === 'doubt.system_close');
    expect(closing.map((r) => [r.itemName, r.reason, r.userName])).toEqual([
      ['sbp', '数据已修正，系统自动关闭', '系统'],
      ['sbp', '数据已修正，系统自动关闭', '系统'],
    ]);
    const operates = (
      await t.call(admin, 'GET', `/api/business/subjectRecord/operates?subjectRecordId=${subjectRecordId}&pageSize=50`)
    ).body.data.list as Array<{ actionName: string; reason: string | null }>;
    expect(operates.filter((r) => r.actionName === '系统关闭质疑')).toHaveLength(2);

    // At least once: the same deliveries again (a lease ran out after the work was done) raise and close nothing more.
    const before = {
      doubts: rows.length,
      messages: (
        await t.db
          .select()
          .from(doubtMessages)
          .where(
            inArray(
              doubtMessages.doubtId,
              rows.map((d) => d.id),
            ),
          )
      ).length,
      audit: (await systemAudit(rid)).length,
    };
    await t.db
      .update(outboxDeliveries)
      .set({ deliveredAt: null, nextAttemptAt: new Date(0) })
      .where(eq(outboxDeliveries.subscriber, SYSTEM_QUERIES));
    await t.ctx.events.drain();
    const again = await t.db.select().from(doubts).where(eq(doubts.crfDataRecordId, rid));
    expect(again).toHaveLength(before.doubts);
    expect(
      (
        await t.db
          .select()
          .from(doubtMessages)
          .where(
            inArray(
              doubtMessages.doubtId,
              rows.map((d) => d.id),
            ),
          )
      ).length,
    ).toBe(before.messages);
    expect((await systemAudit(rid)).length).toBe(before.audit);
  });

  it('QRY-05: a draft never submitted raises no system query (its delivery is done without reconciling); a draft that still has open system queries closes those its correction resolves', async () => {
    const { subjectRecordId } = await enrol('系统草稿');
    const draft = await save({ subjectRecordId, crfId: vitals, version: 0, values: { sbp: 190, dbp: 80, hr: 72 } });
    expect(draft.status, JSON.stringify(draft.body)).toBe(200);
    const rid = draft.body.data.crfDataRecordId as number;
    await t.ctx.events.drain();
    expect(await t.db.select().from(doubts).where(eq(doubts.crfDataRecordId, rid))).toEqual([]);
    const owed = await t.db
      .select({ deliveredAt: outboxDeliveries.deliveredAt })
      .from(outboxDeliveries)
      .where(and(eq(outboxDeliveries.subscriber, SYSTEM_QUERIES), eq(outboxDeliveries.studyId, studyId)));
    expect(owed.every((d) => d.deliveredAt !== null)).toBe(true);

    const submitted = await save({
      subjectRecordId,
      crfId: vitals,
      crfDataRecordId: rid,
      version: 1,
      values: { sbp: 190, dbp: 80, hr: 72 },
      submit: true,
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    await t.ctx.events.drain();
    expect((await t.db.select().from(doubts).where(eq(doubts.crfDataRecordId, rid))).map((d) => d.optionType)).toEqual([
      0, 0,
    ]);
    // The form back in draft (as a console would put it) with its queries open: a correction still closes them.
    await t.db.update(crfDataRecords).set({ state: 1 }).where(eq(crfDataRecords.id, rid));
    const corrected = await save({
      subjectRecordId,
      crfId: vitals,
      crfDataRecordId: rid,
      version: 2,
      values: { sbp: 135, dbp: 80, hr: 72 },
      reason: '更正血压',
    });
    expect(corrected.status, JSON.stringify(corrected.body)).toBe(200);
    await t.ctx.events.drain();
    expect((await t.db.select().from(doubts).where(eq(doubts.crfDataRecordId, rid))).map((d) => d.optionType)).toEqual([
      1, 1,
    ]);
  });

  it('services publish their events inside their transactions, with ids only: subject enrolled, record submitted and saved, query opened, answered and closed by a person and by the system', async () => {
    seen.length = 0;
    const { subjectId, subjectRecordId } = await enrol('事件');
    const submitted = await save({
      subjectRecordId,
      crfId: vitals,
      version: 0,
      values: { sbp: 120, dbp: 80, hr: 130 },
      submit: true,
    });
    const rid = submitted.body.data.crfDataRecordId as number;
    // A refused save publishes nothing.
    const refused = await save({ subjectRecordId, crfId: vitals, crfDataRecordId: rid, version: 0, values: {} });
    expect(refused.status).toBe(409);
    await t.ctx.events.drain();
    const [systemQuery] = await t.db.select().from(doubts).where(eq(doubts.crfDataRecordId, rid));
    expect(systemQuery).toMatchObject({ itemName: 'hr', doubtType: 0 });

    const opened = await t.call(admin, 'POST', '/api/business/doubt/open', {
      crfDataRecordId: rid,
      itemName: 'sbp',
      doubtDescription: '请核对原始记录',
    });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    const queryId = opened.body.data.doubtId as number;
    const reply = await t.call(admin, 'PUT', '/api/business/doubt/reply', { doubtId: queryId, content: '已核对' });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const close = await t.call(admin, 'PUT', '/api/business/doubt/close', { doubtId: queryId, content: '无误' });
    expect(close.status, JSON.stringify(close.body)).toBe(200);
    const saved = await save({
      subjectRecordId,
      crfId: vitals,
      crfDataRecordId: rid,
      version: 1,
      values: { sbp: 120, dbp: 80, hr: 80 },
      reason: '复测',
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    await t.ctx.events.drain();

    const me = (await t.login()).user.userId;
    const ofRecord = { studyId, subjectId, crfId: vitals };
    expect(seen.map((d) => d.event)).toEqual([
      { type: 'subject.enrolled', studyId, subjectId, by: me },
      { type: 'record.submitted', ...ofRecord, recordId: rid, by: me },
      { type: 'query.opened', ...ofRecord, queryId: systemQuery!.id, by: null },
      { type: 'query.opened', ...ofRecord, queryId, by: me },
      { type: 'query.answered', ...ofRecord, queryId, by: me },
      { type: 'query.closed', ...ofRecord, queryId, by: me },
      { type: 'record.saved', ...ofRecord, recordId: rid, by: me },
      { type: 'query.closed', ...ofRecord, queryId: systemQuery!.id, by: null },
    ]);
    // The outbox holds ids and who acted, never values, texts or the patient's name.
    for (const { payload } of await t.db.select({ payload: outboxEvents.payload }).from(outboxEvents)) {
      for (const [key, value] of Object.entries(payload as Record<string, unknown>)) {
        expect(['type', 'studyId', 'subjectId', 'crfId', 'recordId', 'queryId', 'by']).toContain(key);
        if (key !== 'type') expect(value === null || Number.isInteger(value), key).toBe(true);
      }
    }
  });
});
