import { and, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appliedRequests, auditEvents, crfDataRecords } from '../../db/schema/index.js';
import { createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../test/test-app.js';
import { openDemoStudy } from '../../test/demo.js';

let t: TestApp;
let admin: string;
let studyId: number;
const crfIds: Record<string, number> = {};

beforeAll(async () => {
  t = await createTestApp();
  const demo = await openDemoStudy(t);
  ({ admin, studyId } = demo);
  Object.assign(crfIds, demo.crfIds);
});
afterAll(() => t.close());

async function enrol() {
  const res = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName: '孙七',
    gender: 0,
    diseaseCode: 'LSS',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { subjectRecordId: number };
}

const save = (body: object) => t.call(admin, 'PUT', '/api/v3/business/crf', body);

const liveRecords = (subjectRecordId: number, crfId: number) =>
  t.db
    .select()
    .from(crfDataRecords)
    .where(
      and(
        eq(crfDataRecords.subjectRecordId, subjectRecordId),
        eq(crfDataRecords.crfId, crfId),
        isNull(crfDataRecords.deletedAt),
      ),
    );

describe('saving a form: only real changes count', () => {
  it('CRF-27: table rows sent again with their keys in another order are not a change: no audit row, no reason, the signature stands', async () => {
    const { subjectRecordId } = await enrol();
    const crfId = crfIds['实验室检查']!;
    const rows = [
      { lab_item: '谷丙转氨酶', lab_value: 31.5, lab_unit: 'U/L' },
      { lab_item: '肌酐', lab_value: 70, lab_unit: 'μmol/L' },
    ];
    const first = await save({
      subjectRecordId,
      crfId,
      version: 0,
      values: { hb: 130, other_labs: rows },
      submit: true,
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const { crfDataRecordId, version } = first.body.data;
    expect(
      (await t.call(admin, 'PUT', '/api/v1/business/subject/sign', { subjectRecordId, password: TEST_ADMIN_PASSWORD }))
        .status,
    ).toBe(200);
    const auditBefore = await t.db.select().from(auditEvents).where(eq(auditEvents.crfDataRecordId, crfDataRecordId));

    const reordered = rows.map((row) => Object.fromEntries(Object.entries(row).reverse()));
    const again = await save({
      subjectRecordId,
      crfId,
      crfDataRecordId,
      version,
      values: { other_labs: reordered, hb: '130' },
      submit: true,
    });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.data.changedItems).toEqual([]);
    const auditAfter = await t.db.select().from(auditEvents).where(eq(auditEvents.crfDataRecordId, crfDataRecordId));
    expect(auditAfter.filter((row) => row.action === 'item.update')).toHaveLength(
      auditBefore.filter((row) => row.action === 'item.update').length,
    );
    const signatures = (
      await t.call(admin, 'GET', `/api/business/subject/signatures?subjectRecordId=${subjectRecordId}`)
    ).body.data;
    expect(signatures[0].valid).toBe(true);

    const changed = await save({
      subjectRecordId,
      crfId,
      crfDataRecordId,
      version: version + 1,
      values: { hb: 130, other_labs: [rows[0]] },
      submit: true,
    });
    expect(changed.status).toBe(400);
    expect(changed.body.data.changedItems).toEqual(['other_labs']);
  });
});

describe('saving a form: "only one" rules are constraints', () => {
  it('CRF-14/CRF-23: six simultaneous first saves of a single form make one record; the others get the 409 conflict with its values', async () => {
    const { subjectRecordId } = await enrol();
    const crfId = crfIds['生命体征']!;
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => save({ subjectRecordId, crfId, version: 0, values: { hr: 60 + i } })),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409]);
    const records = await liveRecords(subjectRecordId, crfId);
    expect(records).toHaveLength(1);
    for (const conflict of answers.filter((a) => a.status === 409)) {
      expect(conflict.body.data.current.crfDataRecordId).toBe(records[0]!.id);
    }
  });

  it('CRF-23: one request id sent four times at once is applied once, and every answer is the first one', async () => {
    const { subjectRecordId } = await enrol();
    const crfId = crfIds['术后随访']!;
    const body = { subjectRecordId, crfId, version: 0, values: {}, requestId: 'b7c1d1c8-0d6e-4a7e-9d38-2f3f3b0c9a11' };
    const answers = await Promise.all(Array.from({ length: 4 }, () => save(body)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    const ids = new Set(answers.map((a) => a.body.data.crfDataRecordId));
    expect(ids.size).toBe(1);
    expect(await liveRecords(subjectRecordId, crfId)).toHaveLength(1);
    const creates = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.subjectRecordId, subjectRecordId), eq(auditEvents.action, 'crf.create')));
    expect(creates).toHaveLength(1);

    const update = {
      subjectRecordId,
      crfId,
      crfDataRecordId: [...ids][0],
      version: 1,
      values: { fu_note: '恢复良好' },
      requestId: '0c2b5f8e-6a7d-4c35-8f0b-5a1d2e3f4a5b',
    };
    const updates = await Promise.all(Array.from({ length: 3 }, () => save(update)));
    expect(updates.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(new Set(updates.map((a) => a.body.data.version))).toEqual(new Set([2]));
    const [stored] = await liveRecords(subjectRecordId, crfId);
    expect(stored!.version).toBe(2);
  });

  it('a request id sent again with other values is refused (409) and saves nothing; sent again as it was, it gets the first answer', async () => {
    const { subjectRecordId } = await enrol();
    const crfId = crfIds['生命体征']!;
    const first = {
      subjectRecordId,
      crfId,
      version: 0,
      values: { hr: 70 },
      requestId: 'c1a2b3d4-0000-4000-8000-000000000001',
    };
    const saved = await save(first);
    expect(saved.status).toBe(200);
    const crfDataRecordId = saved.body.data.crfDataRecordId as number;
    const [claim] = await t.db.select().from(appliedRequests).where(eq(appliedRequests.requestId, first.requestId));
    expect(claim!.requestHash).toMatch(/^[0-9a-f]{64}$/);

    const auditRows = async () =>
      (await t.db.select().from(auditEvents).where(eq(auditEvents.crfDataRecordId, crfDataRecordId))).length;
    const rowsBefore = await auditRows();
    // The first save's claim (insert path) and a later save's claim (update path) both hold the body's hash.
    for (const changed of [
      { ...first, values: { hr: 99 } },
      { ...first, reason: '复测' },
      { ...first, crfDataRecordId, version: 1, values: { hr: 99 } },
    ]) {
      const refused = await save(changed);
      expect(refused.status, JSON.stringify(changed)).toBe(409);
      expect(refused.body).toEqual({ code: 409, msg: 'requestId 已用于内容不同的保存，本次内容未保存', data: null });
    }
    const [kept] = await liveRecords(subjectRecordId, crfId);
    expect(kept).toMatchObject({ id: crfDataRecordId, version: 1, values: { hr: '70' } });
    expect(await auditRows()).toBe(rowsBefore);

    // The same body, its keys in another order, is the same request.
    const again = await save({ values: { hr: 70 }, version: 0, crfId, requestId: first.requestId, subjectRecordId });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ crfDataRecordId, version: 1, repeated: true });

    const update = {
      subjectRecordId,
      crfId,
      crfDataRecordId,
      version: 1,
      values: { hr: 72 },
      requestId: 'c1a2b3d4-0000-4000-8000-000000000002',
    };
    expect((await save(update)).status).toBe(200);
    expect((await save({ ...update, values: { hr: 73 } })).status).toBe(409);
    expect((await save(update)).body.data).toMatchObject({ crfDataRecordId, version: 2, repeated: true });
    expect((await liveRecords(subjectRecordId, crfId))[0]!.values).toEqual({ hr: '72' });
  });

  it('one request id sent at once with different values is applied once; the others are refused (409)', async () => {
    const { subjectRecordId } = await enrol();
    const crfId = crfIds['术后随访']!;
    const requestId = 'c1a2b3d4-0000-4000-8000-000000000003';
    const answers = await Promise.all(
      ['甲', '乙', '丙'].map((note) =>
        save({ subjectRecordId, crfId, version: 0, values: { fu_note: note }, requestId }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
    const records = await liveRecords(subjectRecordId, crfId);
    expect(records).toHaveLength(1);
    const winner = answers.find((a) => a.status === 200)!;
    expect(records[0]!.id).toBe(winner.body.data.crfDataRecordId);
  });

  it('a request id used for another form is refused', async () => {
    const { subjectRecordId } = await enrol();
    const requestId = '5f1e2d3c-4b5a-4697-8877-665544332211';
    expect(
      (await save({ subjectRecordId, crfId: crfIds['生命体征']!, version: 0, values: { hr: 70 }, requestId })).status,
    ).toBe(200);
    const reused = await save({
      subjectRecordId,
      crfId: crfIds['实验室检查']!,
      version: 0,
      values: { hb: 120 },
      requestId,
    });
    expect(reused.status).toBe(400);
  });
});
