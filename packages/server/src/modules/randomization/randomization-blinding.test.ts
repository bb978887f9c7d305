import { and, asc, eq, sql } from 'drizzle-orm';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allocationCommitment,
  allocationCommitmentMessage,
  buttonKey,
  hmacSha256Hex,
  sha256Hex,
  type AllocationCommitted,
} from '@ecrf/core';
import { auditEvents, randomizations, studies } from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { addStudyMember } from '../../test/study-member.js';
import { TEST_ADMIN_PASSWORD } from '../../test/test-db.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

const BASE = '/api/business/randomization';
const ARMS = [
  { code: 'A', label: '试验组', ratio: 1 },
  { code: 'B', label: '对照组', ratio: 1 },
];
const SITE = {
  key: 'site',
  label: '中心',
  source: 'dept',
  weight: 1,
  levels: [
    { code: 'S1', label: '根机构', values: ['1'] },
    { code: 'S2', label: '其他中心', values: ['2'] },
  ],
};
/** Every method an assignment can be made by, blinded. */
const METHODS = {
  block: { method: 'block', arms: ARMS, blinded: true, blockSizes: [4], listLength: 40, factors: [] },
  stratified_block: {
    method: 'stratified_block',
    arms: ARMS,
    blinded: true,
    blockSizes: [2, 4],
    listLength: 40,
    factors: [SITE],
  },
  simple: { method: 'simple', arms: ARMS, blinded: true, factors: [] },
  minimization: {
    method: 'minimization',
    arms: ARMS,
    blinded: true,
    factors: [SITE],
    minimization: { imbalance: 'range', p: 0.8 },
  },
} as const;
const PER_METHOD = 4;

interface Assigned {
  method: string;
  subjectRecordId: number;
  subjectId: number;
  arm: string;
  scores: Record<string, number> | null;
  chosenBy: string | null;
  kitCode: string;
  randomizationNo: string;
}

/**
 * The attack that recovered every arm: the arm codes are public, the kit code and number are in the row, the
 * scores follow from the factor levels. Here the attacker is given even the true scores and chosenBy; for each
 * arm code it hashes the old and the new committed texts, plain and keyed by anything the trail shows, and looks
 * for the result anywhere in what it read.
 */
function recoveredArms(read: string, patient: Assigned): string[] {
  const keys = ['', patient.kitCode, patient.randomizationNo];
  return ARMS.map((a) => a.code).filter((arm) => {
    const old = JSON.stringify({ arm, scores: patient.scores, chosenBy: patient.chosenBy, kitCode: patient.kitCode });
    const current = allocationCommitmentMessage({ ...patient, arm });
    const guesses = [sha256Hex(old), sha256Hex(current), ...keys.map((k) => hmacSha256Hex(k, current))];
    return guesses.some((hash) => read.includes(hash));
  });
}

describe('randomization: blinding holds in the trail every member reads', () => {
  let t: TestApp;
  let admin: string;
  let studyId: number;
  let emptyRole: string;
  const assigned: Assigned[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    ({ admin, studyId } = await openDemoStudy(t));
    emptyRole = await addStudyMember(t, admin, studyId, '13400000001', { permissions: [] });
    let n = 0;
    for (const [method, config] of Object.entries(METHODS)) {
      const saved = await t.call(admin, 'POST', BASE, { studyId, config, reason: `改为${method}` });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
      for (let i = 0; i < PER_METHOD; i++) {
        const patient = await t.call(admin, 'POST', '/api/business/subject', {
          studyId,
          subjectName: `盲${n++}`,
          gender: 1,
          diseaseCode: 'LSS',
          deptId: 1,
        });
        expect(patient.status, JSON.stringify(patient.body)).toBe(200);
        const { id: subjectId, subjectRecordId } = patient.body.data as { id: number; subjectRecordId: number };
        const res = await t.call(admin, 'POST', `${BASE}/subject`, { studyId, subjectId });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        const [row] = await t.db.select().from(randomizations).where(eq(randomizations.subjectId, subjectId));
        assigned.push({
          method,
          subjectRecordId,
          subjectId,
          arm: row!.arm,
          scores: row!.scores as Record<string, number> | null,
          chosenBy: row!.chosenBy,
          kitCode: row!.kitCode,
          randomizationNo: res.body.data.randomizationNo as string,
        });
      }
    }
  }, 120_000);
  afterAll(() => t.close());

  it('RAND-02: a member with an empty role recovers no arm from the trail, one row or its CSV, for any method', async () => {
    const recovered: Record<string, number> = {};
    for (const patient of assigned) {
      const trail = await t.call(
        emptyRole,
        'GET',
        `/api/business/subjectRecord/operates?subjectRecordId=${patient.subjectRecordId}&pageNum=1&pageSize=100`,
      );
      expect(trail.status).toBe(200);
      const row = (
        trail.body.data.list as Array<{ id: number; action: string; newValue: Record<string, unknown> }>
      ).find((r) => r.action === 'randomization.assign');
      // The member does read the assignment row: number, kit code, stratum, and a commitment, never the arm.
      expect(row, `${patient.method} ${patient.randomizationNo}`).toBeDefined();
      expect(row!.newValue).toMatchObject({ randomizationNo: patient.randomizationNo, kitCode: patient.kitCode });
      expect(row!.newValue).not.toHaveProperty('arm');
      expect(row!.newValue).not.toHaveProperty('scores');
      const one = await t.call(emptyRole, 'GET', `/api/business/subjectRecord/operate?id=${row!.id}`);
      expect(one.status).toBe(200);
      const csv = await t.app.inject({
        method: 'GET',
        url: `/api/business/audit/export?subjectRecordId=${patient.subjectRecordId}`,
        headers: { authorization: `Bearer ${emptyRole}` },
      });
      expect(csv.statusCode).toBe(200);
      const read = JSON.stringify(trail.body) + JSON.stringify(one.body) + csv.body;
      if (recoveredArms(read, patient).length > 0) recovered[patient.method] = (recovered[patient.method] ?? 0) + 1;
      const answer = await t.call(
        emptyRole,
        'GET',
        `${BASE}/subject?studyId=${studyId}&subjectId=${patient.subjectId}`,
      );
      expect(answer.body.data).toMatchObject({ arm: null, armVisible: false });
    }
    expect(recovered).toEqual({});
    expect(new Set(assigned.map((a) => a.method)).size).toBe(4);
  });

  it('RAND-02: a row written as a plain hash before HMAC commitments is read without that hash by a blinded member', async () => {
    const patient = assigned[0]!;
    const [row] = await t.db
      .select()
      .from(auditEvents)
      .where(
        and(eq(auditEvents.subjectRecordId, patient.subjectRecordId), eq(auditEvents.action, 'randomization.assign')),
      );
    const legacy = sha256Hex(
      JSON.stringify({
        arm: patient.arm,
        scores: patient.scores,
        chosenBy: patient.chosenBy,
        kitCode: patient.kitCode,
      }),
    );
    // As such a row stands in a database written by the earlier release: set by the owner, as a console would.
    const rewrite = (value: unknown) =>
      t.asOwner((owner) =>
        owner.transaction(async (tx) => {
          await tx.execute(sql`alter table audit_events disable trigger audit_events_no_update_delete`);
          await tx.execute(
            sql`update audit_events set new_value = ${JSON.stringify(value)}::jsonb where id = ${row!.id}`,
          );
          await tx.execute(sql`alter table audit_events enable trigger audit_events_no_update_delete`);
        }),
      );
    const { allocationHmac: _new, ...rest } = row!.newValue as Record<string, unknown>;
    await rewrite({ ...rest, allocationSha256: legacy });
    try {
      const one = await t.call(emptyRole, 'GET', `/api/business/subjectRecord/operate?id=${row!.id}`);
      expect(one.status).toBe(200);
      expect(one.body.data.newValue).not.toHaveProperty('allocationSha256');
      expect(JSON.stringify(one.body)).not.toContain(legacy);
      const unblinded = await addStudyMember(t, admin, studyId, '13400000002', {
        permissions: [buttonKey('business.randomization.unblinded')],
      });
      const asStatistician = await t.call(unblinded, 'GET', `/api/business/subjectRecord/operate?id=${row!.id}`);
      expect(asStatistician.body.data.newValue.allocationSha256).toBe(legacy);
    } finally {
      await rewrite(row!.newValue);
    }
  });

  it("RAND-04: a configuration's trail row tells the list length only to roles that may see the block sizes", async () => {
    const [configRow] = await t.db
      .select({ id: auditEvents.id })
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, studyId), eq(auditEvents.action, 'randomization.config')))
      .orderBy(asc(auditEvents.id));
    const asMember = await t.call(emptyRole, 'GET', `/api/business/subjectRecord/operate?id=${configRow!.id}`);
    expect(asMember.status).toBe(200);
    expect(asMember.body.data.newValue).not.toHaveProperty('slots');
    expect(asMember.body.data.newValue).toHaveProperty('seedSha256');
    const configurer = await addStudyMember(t, admin, studyId, '13400000003', {
      permissions: [buttonKey('business.randomization.config')],
    });
    const asConfigurer = await t.call(configurer, 'GET', `/api/business/subjectRecord/operate?id=${configRow!.id}`);
    expect(asConfigurer.body.data.newValue.slots).toBe(40);
  });

  it("RAND-06: after 全部揭盲 an auditor checks every version's seed and every assignment's commitment from the study's trail CSV", async () => {
    const [{ studyName }] = (await t.db
      .select({ studyName: studies.studyName })
      .from(studies)
      .where(eq(studies.studyId, studyId))) as [{ studyName: string }];
    const done = await t.call(admin, 'PUT', `${BASE}/unblind/all`, {
      studyId,
      password: TEST_ADMIN_PASSWORD,
      confirmText: studyName,
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);

    const csv = await t.app.inject({
      method: 'GET',
      url: `/api/business/audit/export?studyId=${studyId}`,
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(csv.statusCode).toBe(200);
    const rows = Papa.parse<string[]>(csv.body.replace(/^\uFEFF/, ''), { skipEmptyLines: true }).data;
    const header = rows[0]!;
    const col = (name: string) => header.indexOf(name);
    const of = (action: string) =>
      rows
        .slice(1)
        .filter((r) => r[col('操作代码')] === action)
        .map((r) => JSON.parse(r[col('新值（原始）')]!) as Record<string, any>);
    const [disclosed] = of('randomization.unblind_all');
    const seeds = new Map<number, string>(
      disclosed!.seeds.map((s: { version: number; seed: string }) => [s.version, s.seed]),
    );
    for (const config of of('randomization.config')) {
      expect(sha256Hex(seeds.get(config.version)!)).toBe(config.seedSha256);
    }
    const allocations = new Map<string, AllocationCommitted & { version: number }>(
      disclosed!.allocations.map((a: AllocationCommitted & { version: number }) => [a.randomizationNo, a]),
    );
    const assignRows = of('randomization.assign');
    expect(assignRows).toHaveLength(assigned.length);
    let verified = 0;
    for (const row of assignRows) {
      const allocation = allocations.get(row.randomizationNo)!;
      expect(allocation.version).toBe(row.version);
      expect(allocation.kitCode).toBe(row.kitCode);
      expect(allocationCommitment(seeds.get(row.version)!, allocation)).toBe(row.allocationHmac);
      // The disclosed arm is the one the database holds: the commitment made at assignment binds it.
      expect(allocation.arm).toBe(assigned.find((a) => a.randomizationNo === row.randomizationNo)!.arm);
      verified++;
    }
    expect(verified).toBe(PER_METHOD * 4);
    const stored = await t.db
      .select({ n: randomizations.randomizationNo })
      .from(randomizations)
      .where(eq(randomizations.studyId, studyId))
      .orderBy(asc(randomizations.randomizationNo));
    expect(stored).toHaveLength(verified);
  });
});
