import { and, count, eq, inArray, isNull, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ImportCell } from '@ecrf/core';
import {
  auditEvents,
  crfDataRecords,
  outboxDeliveries,
  outboxEvents,
  subjectRecords,
  users,
} from '../../db/schema/index.js';
import { studyAccessOf } from '../../shared/study-access-of.js';
import type { CurrentUser } from '../../shared/current-user.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { openDemoStudy } from '../../test/demo.js';
import { createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../test/test-app.js';
import { verifyAuditChains } from '../audit/audit-chain.js';
import { permissionsOf } from '../../shared/user-permissions.js';
import { applyPlan, IMPORT_BATCH, importReason } from './data-import-run.service.js';
import { planImport } from './data-import.service.js';

/**
 * The import writes a batch of patients per transaction, set-based (crf-data/form-write-batch.ts). These tests hold it
 * to the form save's effects (audit rows, events, signatures, the audit chain) and to all or nothing per
 * patient when the save refuses a patient at write time, in the middle of a batch.
 */
let t: TestApp;
let admin: string;
let studyId: number;
let crfIds: Record<string, number>;
let user: CurrentUser;
let access: StudyAccess;
const SHA = 'a'.repeat(64);
const saved = { ...IMPORT_BATCH };

async function enrol(name: string) {
  const res = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName: name,
    gender: 1,
    birth: '1960-05-01',
    diseaseCode: 'LSS',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { identificationCode: string; subjectRecordId: number };
}

async function save(
  subjectRecordId: number,
  crf: string,
  values: Record<string, unknown>,
  stored?: { crfDataRecordId: number; version: number },
) {
  const res = await t.call(admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId,
    crfId: crfIds[crf],
    crfDataRecordId: stored?.crfDataRecordId ?? null,
    version: stored?.version ?? 0,
    values,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { crfDataRecordId: number; version: number };
}

const sheet = (name: string, header: string[], rows: ImportCell[][]) => ({
  name,
  header,
  rows: rows.map((cells, i) => ({ row: i + 2, cells })),
});

async function recordsOf(subjectRecordIds: number[]) {
  return t.db
    .select()
    .from(crfDataRecords)
    .where(inArray(crfDataRecords.subjectRecordId, subjectRecordIds))
    .orderBy(crfDataRecords.id);
}

async function trailCount() {
  const [n] = await t.db.select({ n: count() }).from(auditEvents).where(eq(auditEvents.studyId, studyId));
  return n!.n;
}

beforeAll(async () => {
  t = await createTestApp({ config: { dataDir: `/tmp/edc-import-batch-test-${process.pid}` } });
  ({ admin, studyId, crfIds } = await openDemoStudy(t));
  const [owner] = await t.db.select().from(users).where(eq(users.userName, '13800000000'));
  const { permissions } = await permissionsOf(t.db, owner!.userId);
  user = {
    userId: owner!.userId,
    userName: owner!.userName,
    name: owner!.name,
    deptId: owner!.deptId,
    sessionId: '',
    admin: false,
    permissions,
    setPasswordMust: false,
  };
  access = (await studyAccessOf(t.ctx, owner!.userId, permissions, studyId))!;
});
afterAll(async () => {
  await t.close();
});
afterEach(() => {
  Object.assign(IMPORT_BATCH, saved);
});

describe('batched import', () => {
  it('SRCH-06: patients written several per transaction get the save’s audit rows, events and voided signatures', async () => {
    // Batches of two, whatever they take (the size would otherwise follow their duration).
    Object.assign(IMPORT_BATCH, { patients: 2, first: 2, targetMs: 3_600_000 });
    const patients = [];
    for (const name of ['批甲', '批乙', '批丙', '批丁', '批戊']) patients.push(await enrol(name));
    const signed = await t.call(admin, 'PUT', '/api/v1/business/subject/sign', {
      subjectRecordId: patients[2]!.subjectRecordId,
      password: TEST_ADMIN_PASSWORD,
    });
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    const [events] = await t.db.select({ n: count() }).from(outboxEvents);
    const plan = await planImport(
      t.ctx,
      access,
      [
        sheet(
          '生命体征',
          ['编号', 'hr'],
          patients.map((p, i) => [p.identificationCode, 60 + i]),
        ),
      ],
      { submit: false, details: false },
    );
    const progress: number[] = [];
    const result = await applyPlan(t.ctx, user, access, plan, {
      mode: 'patient',
      submitType: 0,
      sha256: SHA,
      progress: async (done) => {
        progress.push(done);
      },
    });
    expect(result).toMatchObject({ importedPatients: 5, skippedPatients: 0, createdRecords: 5, values: 5, errors: [] });
    // Three transactions of at most two patients, progress after each.
    expect(progress).toEqual([2, 4, 5]);
    const records = await recordsOf(patients.map((p) => p.subjectRecordId));
    expect(records.map((r) => r.values.hr)).toEqual(['60', '61', '62', '63', '64']);
    const trail = await t.db
      .select()
      .from(auditEvents)
      .where(
        inArray(
          auditEvents.crfDataRecordId,
          records.map((r) => r.id),
        ),
      )
      .orderBy(auditEvents.id);
    for (const r of records) {
      const own = trail.filter((a) => a.crfDataRecordId === r.id);
      expect(own.map((a) => a.action)).toEqual(['crf.create', 'item.update']);
      // The ORM reads a jsonb string that looks like a number back as the number (as in the import's other tests).
      expect(own[1]).toMatchObject({ itemName: 'hr', newValue: Number(r.values.hr), reason: importReason(SHA) });
    }
    const [voided] = await t.db
      .select()
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.subjectRecordId, patients[2]!.subjectRecordId),
          eq(auditEvents.action, 'subject.sign_invalidated'),
        ),
      );
    expect(voided!.reason).toBe('表单“生命体征”的数据在签名后被修改');
    const signatures = await t.call(
      admin,
      'GET',
      `/api/business/subject/signatures?subjectRecordId=${patients[2]!.subjectRecordId}`,
    );
    expect(signatures.body.data[0]).toMatchObject({ valid: false });
    const [after] = await t.db.select({ n: count() }).from(outboxEvents);
    expect(after!.n - events!.n).toBe(5);
    // The import waits for a batch's reactions before it writes the next: when it ends, only the last batch's
    // events (the fifth patient's) may still be owed to a subscriber.
    const owed = await t.db
      .select({ recordId: sql<number>`(${outboxEvents.payload} ->> 'recordId')::int` })
      .from(outboxDeliveries)
      .innerJoin(
        outboxEvents,
        and(eq(outboxEvents.studyId, outboxDeliveries.studyId), eq(outboxEvents.id, outboxDeliveries.eventId)),
      )
      .where(and(eq(outboxDeliveries.studyId, studyId), isNull(outboxDeliveries.deliveredAt)));
    expect(owed.every((o) => o.recordId === records[4]!.id)).toBe(true);
    expect((await verifyAuditChains(t.db)).ok).toBe(true);
  });

  describe('a patient the save refuses at write time, in the middle of a batch', () => {
    // Three patients with a record of 人口学资料 each; the file creates their 生命体征 (first sheet) and changes
    // their weight (second sheet). The second patient's 人口学资料 is changed by someone else after the plan,
    // so its second record is refused after its first was written in the same transaction.
    async function setUp() {
      const patients = [];
      const demographics = [];
      for (const name of ['拒甲', '拒乙', '拒丙']) {
        const p = await enrol(name);
        patients.push(p);
        demographics.push(
          await save(p.subjectRecordId, '人口学资料', { sex: '1', birth: '1960-05-01', weight: '65', height: '170' }),
        );
      }
      const plan = await planImport(
        t.ctx,
        access,
        [
          sheet(
            '生命体征',
            ['编号', 'hr'],
            patients.map((p) => [p.identificationCode, 70]),
          ),
          sheet(
            '人口学资料',
            ['编号', 'weight'],
            patients.map((p) => [p.identificationCode, 80]),
          ),
        ],
        { submit: false, details: false },
      );
      expect(plan.targets.every((target) => target.errors.length === 0)).toBe(true);
      await save(
        patients[1]!.subjectRecordId,
        '人口学资料',
        { sex: '1', birth: '1960-05-01', weight: '66', height: '170' },
        demographics[1],
      );
      return { patients, plan };
    }

    it('SRCH-06: per patient, that patient is left untouched (its earlier record too) and the others are written', async () => {
      const { patients, plan } = await setUp();
      const result = await applyPlan(t.ctx, user, access, plan, { mode: 'patient', submitType: 0, sha256: SHA });
      expect(result).toMatchObject({ importedPatients: 2, skippedPatients: 1, createdRecords: 2, updatedRecords: 2 });
      expect(result.errors).toEqual([
        { sheet: '人口学资料', row: 3, column: null, message: '数据已被他人修改，请刷新后重试' },
      ]);
      const records = await recordsOf(patients.map((p) => p.subjectRecordId));
      const of = (i: number, crf: string) =>
        records.filter((r) => r.subjectRecordId === patients[i]!.subjectRecordId && r.crfId === crfIds[crf]);
      for (const i of [0, 2]) {
        expect(of(i, '生命体征')[0]!.values.hr).toBe('70');
        expect(of(i, '人口学资料')[0]!.values.weight).toBe('80');
      }
      expect(of(1, '生命体征')).toEqual([]);
      expect(of(1, '人口学资料')[0]!).toMatchObject({ version: 2, values: expect.objectContaining({ weight: '66' }) });
      const importedTrail = await t.db
        .select({ n: count() })
        .from(auditEvents)
        .where(
          and(eq(auditEvents.subjectRecordId, patients[1]!.subjectRecordId), eq(auditEvents.reason, importReason(SHA))),
        );
      expect(importedTrail[0]!.n).toBe(0);
      expect((await verifyAuditChains(t.db)).ok).toBe(true);
    });

    it('SRCH-06: for the whole file, nothing is written', async () => {
      const { plan } = await setUp();
      const records = await t.db.select({ n: count() }).from(crfDataRecords);
      const trail = await trailCount();
      const result = await applyPlan(t.ctx, user, access, plan, { mode: 'file', submitType: 0, sha256: SHA });
      expect(result).toMatchObject({ importedPatients: 0, skippedPatients: 3, createdRecords: 0 });
      expect(result.errors[0]).toMatchObject({
        sheet: '人口学资料',
        row: 3,
        message: '数据已被他人修改，请刷新后重试',
      });
      expect(await t.db.select({ n: count() }).from(crfDataRecords)).toEqual(records);
      expect(await trailCount()).toBe(trail);
    });

    it('SRCH-06: a patient deleted after the plan is refused; the batch is written without it', async () => {
      Object.assign(IMPORT_BATCH, { patients: 3, first: 3, targetMs: 3_600_000 });
      const patients = [];
      for (const name of ['删甲', '删乙', '删丙']) patients.push(await enrol(name));
      const plan = await planImport(
        t.ctx,
        access,
        [
          sheet(
            '生命体征',
            ['编号', 'hr'],
            patients.map((p) => [p.identificationCode, 75]),
          ),
        ],
        { submit: false, details: false },
      );
      // Deleted meanwhile (as the patient list's delete leaves it: the casebook marked deleted).
      await t.db
        .update(subjectRecords)
        .set({ deletedAt: new Date() })
        .where(eq(subjectRecords.id, patients[1]!.subjectRecordId));
      const result = await applyPlan(t.ctx, user, access, plan, { mode: 'patient', submitType: 0, sha256: SHA });
      expect(result).toMatchObject({ importedPatients: 2, skippedPatients: 1, createdRecords: 2 });
      expect(result.errors).toEqual([{ sheet: '生命体征', row: 3, column: null, message: '患者不存在' }]);
      const records = await recordsOf(patients.map((p) => p.subjectRecordId));
      expect(records.map((r) => r.subjectRecordId)).toEqual([
        patients[0]!.subjectRecordId,
        patients[2]!.subjectRecordId,
      ]);
    });
  });
});
