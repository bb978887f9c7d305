import { and, eq, sql } from 'drizzle-orm';
import { allStudyPermissionKeys, COMMENT_MSG, commentListSchema, crfKey, itemCommentSchema } from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../db/client.js';
import { auditEvents, itemComments } from '../../db/schema/index.js';
import { contractData } from '../../test/contract.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { openTwoSiteStudy, type TwoSiteStudy } from '../../test/two-sites.js';

/**
 * Field comments (批注, issue 37) through the HTTP API: added and listed, audited in the same step and exported in
 * the audit CSV, read under the form's view permission, site-scoped, refused under a lock, bounded and checked
 * against the record's form. Runs on PGlite and, with TEST_DATABASE_URL, on PostgreSQL.
 */
let t: TestApp;
let s: TwoSiteStudy;
let recordA: number;
let vitalsId: number;

const ADD = '/api/business/crf/comment';
const listUrl = (crfDataRecordId: number, itemName?: string) =>
  `/api/business/crf/comments?studyId=${s.studyId}&crfDataRecordId=${crfDataRecordId}${itemName ? `&itemName=${itemName}` : ''}`;
const add = (token: string, body: Record<string, unknown>) =>
  t.call(token, 'POST', ADD, { studyId: s.studyId, crfDataRecordId: recordA, itemName: 'hr', ...body });
const commentCount = async () =>
  Number((await queryRows<{ n: number }>(t.db, sql`select count(*)::int as n from item_comments`))[0]!.n);
const commentAudits = () =>
  t.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.studyId, s.studyId), eq(auditEvents.action, 'crf.comment')));

beforeAll(async () => {
  t = await createTestApp();
  s = await openTwoSiteStudy(t);
  vitalsId = s.crfIds['生命体征']!;
  const saved = await t.call(s.admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId: s.patientA.subjectRecordId,
    crfId: vitalsId,
    version: 0,
    values: { sbp: '120', dbp: '80', hr: '72' },
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  recordA = saved.body.data.crfDataRecordId;
});
afterAll(() => t.close());

describe('field comments (批注)', () => {
  it('comments: a site nurse adds a comment to an item and reads it back, trimmed, with author and time', async () => {
    const res = await add(s.nurseA.token, { content: '  来源：门诊病历 2026-11-20  ' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.msg).toBe(COMMENT_MSG.added);
    const added = contractData(itemCommentSchema, res);
    expect(added).toMatchObject({
      studyId: s.studyId,
      crfDataRecordId: recordA,
      subjectRecordId: s.patientA.subjectRecordId,
      crfId: vitalsId,
      itemName: 'hr',
      content: '来源：门诊病历 2026-11-20',
      userId: s.nurseA.userId,
      userName: expect.stringContaining('13700000001'),
      createDate: t.clock().toISOString(),
    });
    await add(s.admin, { itemName: 'sbp', content: '请监查员核对原始记录' });

    const all = contractData(commentListSchema, await t.call(s.nurseA.token, 'GET', listUrl(recordA)));
    expect(all.map((c) => [c.itemName, c.content])).toEqual([
      ['hr', '来源：门诊病历 2026-11-20'],
      ['sbp', '请监查员核对原始记录'],
    ]);
    const hr = contractData(commentListSchema, await t.call(s.monitor.token, 'GET', listUrl(recordA, 'hr')));
    expect(hr.map((c) => c.commentId)).toEqual([added.commentId]);
    const [row] = await t.db.select().from(itemComments).where(eq(itemComments.id, added.commentId));
    expect(row).toMatchObject({ content: '来源：门诊病历 2026-11-20', studyId: s.studyId });
  });

  it('comments: each comment is an audit row (who, when, item, content), read in the item history and the audit CSV', async () => {
    const rows = await commentAudits();
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      subjectRecordId: s.patientA.subjectRecordId,
      crfDataRecordId: recordA,
      crfId: vitalsId,
      itemName: 'hr',
      newValue: '来源：门诊病历 2026-11-20',
      userId: s.nurseA.userId,
      userName: expect.stringContaining('13700000001'),
    });
    expect(new Date(rows[0]!.createdAt).toISOString()).toBe(t.clock().toISOString());

    const history = await t.call(s.admin, 'GET', `/api/business/crf/audit?crfDataRecordId=${recordA}&itemName=hr`);
    expect(history.status, JSON.stringify(history.body)).toBe(200);
    expect(history.body.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          action: 'crf.comment',
          actionName: '添加批注',
          newText: '来源：门诊病历 2026-11-20',
        }),
      ]),
    );
    const csv = await t.app.inject({
      method: 'GET',
      url: `/api/business/audit/export?studyId=${s.studyId}`,
      headers: { authorization: `Bearer ${s.admin}` },
    });
    expect(csv.statusCode).toBe(200);
    expect(csv.body).toContain('添加批注');
    expect(csv.body).toContain('来源：门诊病历 2026-11-20');
  });

  it('comments: a member without the form’s view permission is refused (403) on both routes and writes nothing', async () => {
    const keys = allStudyPermissionKeys(Object.values(s.crfIds)).filter((k) => k !== crfKey(vitalsId, 'view'));
    const blind = await addStudyMember(t, s.admin, s.studyId, '13700000009', { permissions: keys });
    const before = await commentCount();
    expect((await t.call(blind, 'GET', listUrl(recordA))).status).toBe(403);
    expect((await add(blind, { content: '看不到的表单' })).status).toBe(403);
    expect(await commentCount()).toBe(before);
  });

  it('comments: a nurse of another site is answered 404 for site A’s record and writes nothing', async () => {
    const before = await commentCount();
    const audits = (await commentAudits()).length;
    const read = await t.call(s.nurseB.token, 'GET', listUrl(recordA));
    expect(read.status).toBe(404);
    expect(read.body.msg).toBe('患者不存在');
    const write = await add(s.nurseB.token, { content: '乙院的批注' });
    expect(write.status).toBe(404);
    expect(await commentCount()).toBe(before);
    expect((await commentAudits()).length).toBe(audits);
  });

  it('comments: a record unknown to the study is 404; an item not of the record’s form is 400', async () => {
    const unknown = await add(s.admin, { crfDataRecordId: 999_999, content: '无此记录' });
    expect(unknown.status).toBe(404);
    const bad = await add(s.admin, { itemName: 'no_such_item', content: '无此题目' });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toBe(COMMENT_MSG.itemNotInForm);
  });

  it('comments: content is 1..500 characters after trimming', async () => {
    const before = await commentCount();
    for (const content of ['', '   ', undefined]) {
      const res = await add(s.admin, { content });
      expect(res.status).toBe(400);
      expect(res.body.msg).toBe(COMMENT_MSG.contentRequired);
    }
    const long = await add(s.admin, { content: '批'.repeat(501) });
    expect(long.status).toBe(400);
    expect(long.body.msg).toBe(COMMENT_MSG.contentTooLong);
    expect(await commentCount()).toBe(before);
    const longest = await add(s.admin, { content: ` ${'注'.repeat(500)} ` });
    expect(longest.status, JSON.stringify(longest.body)).toBe(200);
    expect(longest.body.data.content).toHaveLength(500);
  });

  it('comments: a locked record takes no new comment (423, the lock named) but its comments are still read', async () => {
    const lock = (locked: boolean) =>
      t.call(s.admin, 'PUT', '/api/business/lock', {
        studyId: s.studyId,
        scope: 'record',
        targetId: recordA,
        locked,
        reason: '核查完毕',
      });
    expect((await lock(true)).status).toBe(200);
    const before = await commentCount();
    const refused = await add(s.nurseA.token, { content: '锁定后的批注' });
    expect(refused.status).toBe(423);
    expect(refused.body.msg).toMatch(/已锁定.*如需修改请先解锁/);
    expect(await commentCount()).toBe(before);
    const read = await t.call(s.nurseA.token, 'GET', listUrl(recordA));
    expect(read.status).toBe(200);
    expect(read.body.data.length).toBe(before);
    expect((await lock(false)).status).toBe(200);
    expect((await add(s.nurseA.token, { content: '解锁后的批注' })).status).toBe(200);
  });
});
