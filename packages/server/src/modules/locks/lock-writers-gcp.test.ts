import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { STUDY_FROZEN_MSG } from '@ecrf/core';
import { codedItems, crfDataRecords, labReferenceRanges, qualityFindings, saeReports } from '../../db/schema/index.js';
import {
  enableAe,
  GCP_TABLES,
  runQuality,
  saveForm,
  saveSeriousAe,
  setUpCoding,
  studyFingerprint,
} from '../../test/gcp-fixture.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { openTwoSiteStudy, type TwoSiteStudy } from '../../test/two-sites.js';

/**
 * The lock × writer matrix (docs/multi-centre.md, locks) for issue 37's writers: a missing-data mark through the form
 * save, a manual code and a code's approval (医学编码), a query raised from a quality finding (数据核查), an SAE
 * report's submission and its follow-up. Under each scope — the form records, the casebook, the patient's site, the
 * study, a finished study — each is refused with the lock's words and writes nothing; once lifted, each passes.
 * Decisions: locked data takes no new query (the doc lists new queries among the refused writers), so a batch from
 * 数据核查 answers the finding refused with the lock's words, as the data import answers its rows; an SAE report's
 * submission and follow-up are refused like any change to the casebook (the report keeps the AE record's values).
 * Comments are in lock-writers.test.ts.
 *
 * 双份录入: an entry's save and its 完成 and the reconciliation, each on a form record that exists (a form lock names
 * a record; an entry of a record not yet written is held by the casebook's and wider locks). 参考范围: adding and
 * changing a site's range is held by the study lock, the finished study and the site's lock only; under a form or
 * casebook lock it passes (a range change never rewrites a stored record: lab-ranges-locks.test.ts).
 */
let t: TestApp;
let s: TwoSiteStudy;
let aeCrf: number;
let history: number;
let surgery: number;
let vitals: number;
let labs: number;
let imaging: number;
let rangeId: number;

/** What the fingerprint hashes: the GCP tables, the entries of double entry and the site ranges. */
const TABLES = [...GCP_TABLES, 'double_entries', 'lab_reference_ranges'];

/** One patient at site A with something for each writer. */
interface Fixture {
  subjectRecordId: number;
  /** Every form record the writers touch: what a form lock locks. */
  records: number[];
  vitalsRecord: number;
  /** An auto-coded 其他病史 to approve; an uncoded 并发症 to code by hand. */
  autoCoded: number;
  uncoded: number;
  finding: number;
  runId: number;
  /** A pending report to submit, and a submitted one to follow up. */
  pendingReport: number;
  submittedReport: number;
  /** 双份录入: a 实验室检查 record with both entries done (to reconcile); a 影像学检查 record with no entry yet. */
  pairRecord: number;
  entryRecord: number;
}

type Outcome = { status: number; msg: string; ok: boolean };

const http = async (method: string, url: string, body: object, token = s.admin): Promise<Outcome> => {
  const res = await t.call(token, method, url, body);
  return { status: res.status, msg: res.body.msg, ok: res.status === 200 };
};

type ScopeKey = 'record' | 'subject' | 'site' | 'study' | 'finished';

interface Writer {
  name: string;
  /** 423 for the API; the batch of queries answers 200 with each refused finding's reason. */
  refusedStatus?: number;
  /** The scopes that hold it (every one when not given); under the others it passes while they are set. */
  heldBy?: readonly ScopeKey[];
  run: (f: Fixture) => Promise<Outcome>;
}

const entryOf = (f: Fixture) => ({
  studyId: s.studyId,
  subjectRecordId: f.subjectRecordId,
  crfId: imaging,
  crfDataRecordId: f.entryRecord,
});
const pairOf = (f: Fixture) => ({
  studyId: s.studyId,
  subjectRecordId: f.subjectRecordId,
  crfId: labs,
  crfDataRecordId: f.pairRecord,
});
const range = { analyte: 'WBC', sex: null, ageMin: null, ageMax: null, lower: 3.5, upper: 9.5, unit: '10^9/L' };
const SITE_SCOPES: ScopeKey[] = ['site', 'study', 'finished'];

/** In the order they run once unlocked. */
const WRITERS: Writer[] = [
  {
    name: 'query from a quality finding',
    refusedStatus: 200,
    run: async (f) => {
      const res = await t.call(s.admin, 'POST', '/api/business/quality/queries', {
        studyId: s.studyId,
        runId: f.runId,
        findingIds: [f.finding],
      });
      const data = res.body.data as { raised: number; refused: Array<{ reason: string }> };
      return { status: res.status, msg: data?.refused[0]?.reason ?? res.body.msg, ok: data?.raised === 1 };
    },
  },
  {
    name: 'missing-data mark (form save)',
    run: async (f) => {
      const [row] = await t.db.select().from(crfDataRecords).where(eq(crfDataRecords.id, f.vitalsRecord));
      return http('PUT', '/api/v3/business/crf', {
        subjectRecordId: f.subjectRecordId,
        crfId: vitals,
        crfDataRecordId: f.vitalsRecord,
        version: row!.version,
        values: { dbp: '80', hr: '70' },
        missing: { sbp: 'ND' },
      });
    },
  },
  {
    name: 'code approval',
    run: (f) => http('POST', '/api/business/coding/approve', { studyId: s.studyId, codedItemIds: [f.autoCoded] }),
  },
  {
    name: 'manual code',
    run: (f) =>
      http('POST', '/api/business/coding/code', { studyId: s.studyId, codedItemId: f.uncoded, termCode: '90300002' }),
  },
  {
    name: 'SAE report submitted',
    run: (f) => http('POST', '/api/business/safety/sae/submit', { studyId: s.studyId, saeReportId: f.pendingReport }),
  },
  {
    name: 'SAE follow-up report',
    run: (f) =>
      http('POST', '/api/business/safety/sae/followup', { studyId: s.studyId, saeReportId: f.submittedReport }),
  },
  {
    name: '双份录入 entry saved',
    run: (f) =>
      http(
        'PUT',
        '/api/business/double-entry/entry',
        { ...entryOf(f), values: { img_date: '2026-01-12' } },
        s.nurseA.token,
      ),
  },
  {
    name: '双份录入 entry done',
    run: (f) => http('POST', '/api/business/double-entry/done', entryOf(f), s.nurseA.token),
  },
  {
    name: '双份录入 reconciled',
    run: (f) => http('POST', '/api/business/double-entry/reconcile', { ...pairOf(f), decisions: { wbc: 'entry1' } }),
  },
  {
    name: '参考范围 added',
    heldBy: SITE_SCOPES,
    run: () =>
      http('POST', '/api/business/lab-ranges', {
        studyId: s.studyId,
        siteId: s.siteA,
        ...range,
        effectiveFrom: '2020-01-01',
      }),
  },
  {
    name: '参考范围 changed',
    heldBy: SITE_SCOPES,
    run: () =>
      http('PUT', `/api/business/lab-ranges/${rangeId}`, {
        studyId: s.studyId,
        siteId: s.siteA,
        ...range,
        effectiveFrom: '2020-01-01',
        upper: 10 + patients,
        reason: '检验科更新',
      }),
  },
];

const doubleEntry = async (on: boolean) => {
  for (const crfId of [labs, imaging]) {
    const res = await t.call(s.admin, 'PUT', '/api/business/study/crf/double_entry', {
      studyId: s.studyId,
      crfId,
      doubleEntry: on,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
};

let patients = 0;
async function fixture(): Promise<Fixture> {
  patients += 1;
  const enrolled = await t.call(s.admin, 'POST', '/api/business/subject', {
    studyId: s.studyId,
    subjectName: `锁定编码患者${patients}`,
    gender: 1,
    birth: '1960-05-01',
    diseaseCode: 'LSS',
    deptId: s.siteA,
  });
  expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
  const subjectRecordId = enrolled.body.data.subjectRecordId as number;
  // 收缩压 blank: a 必填项未填写 finding to raise a query from.
  const vitalsRecord = await saveForm(t, s.admin, { subjectRecordId, crfId: vitals, values: { dbp: '80', hr: '70' } });
  // '头疼' is a current LLT of the made-up MedDRA (auto-coded); '作呕（旧称）' a non-current one (left uncoded).
  const historyRecord = await saveForm(t, s.admin, {
    subjectRecordId,
    crfId: history,
    values: { history_note: '头疼' },
  });
  const surgeryRecord = await saveForm(t, s.admin, {
    subjectRecordId,
    crfId: surgery,
    values: { op_complication: ['dural'], complication_note: '作呕（旧称）' },
  });
  const aePending = await saveSeriousAe(t, s.admin, subjectRecordId, aeCrf, '肺炎');
  const aeSubmitted = await saveSeriousAe(t, s.admin, subjectRecordId, aeCrf, '心衰');
  const reportOf = async (crfDataRecordId: number) =>
    (await t.db.select().from(saeReports).where(eq(saeReports.crfDataRecordId, crfDataRecordId)))[0]!.id;
  const submittedReport = await reportOf(aeSubmitted);
  const submitted = await t.call(s.admin, 'POST', '/api/business/safety/sae/submit', {
    studyId: s.studyId,
    saeReportId: submittedReport,
  });
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
  const codedOf = async (crfDataRecordId: number) =>
    (await t.db.select().from(codedItems).where(eq(codedItems.crfDataRecordId, crfDataRecordId)))[0]!;
  const auto = await codedOf(historyRecord);
  expect(auto.state).toBe('auto');
  const uncoded = await codedOf(surgeryRecord);
  expect(uncoded.state).toBe('uncoded');
  // 双份录入: records of both forms written before they were set to double entry; the pair's two entries done.
  await doubleEntry(false);
  const pairRecord = await saveForm(t, s.admin, { subjectRecordId, crfId: labs, values: { wbc: '8.2' } });
  const entryRecord = await saveForm(t, s.admin, {
    subjectRecordId,
    crfId: imaging,
    values: { img_date: '2026-01-11' },
  });
  await doubleEntry(true);
  const pair = { studyId: s.studyId, subjectRecordId, crfId: labs, crfDataRecordId: pairRecord };
  for (const [token, wbc] of [
    [s.nurseA.token, '8.4'],
    [s.monitor.token, '8.5'],
  ] as const) {
    expect((await http('PUT', '/api/business/double-entry/entry', { ...pair, values: { wbc } }, token)).ok).toBe(true);
    expect((await http('POST', '/api/business/double-entry/done', pair, token)).ok).toBe(true);
  }
  const runId = await runQuality(t, s.admin, s.studyId, { kind: 'site', deptId: s.siteA });
  const [finding] = await t.db
    .select()
    .from(qualityFindings)
    .where(
      and(
        eq(qualityFindings.runId, runId),
        eq(qualityFindings.crfDataRecordId, vitalsRecord),
        eq(qualityFindings.itemName, 'sbp'),
      ),
    );
  return {
    subjectRecordId,
    records: [vitalsRecord, historyRecord, surgeryRecord, aePending, aeSubmitted, pairRecord, entryRecord],
    vitalsRecord,
    autoCoded: auto.id,
    uncoded: uncoded.id,
    finding: finding!.id,
    runId,
    pendingReport: await reportOf(aePending),
    submittedReport,
    pairRecord,
    entryRecord,
  };
}

const lockCall = async (body: object) => {
  const res = await t.call(s.admin, 'PUT', '/api/business/lock', { studyId: s.studyId, reason: '核查完成', ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};
const setStatus = async (status: number) => {
  const res = await t.call(s.admin, 'PUT', '/api/business/study', { id: s.studyId, status, reason: '重新开启' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};
const eachRecord = async (f: Fixture, locked: boolean) => {
  for (const targetId of f.records) await lockCall({ scope: 'record', targetId, locked });
};

const SCOPES: Array<{
  key: ScopeKey;
  name: string;
  lock: (f: Fixture) => Promise<void>;
  unlock: (f: Fixture) => Promise<void>;
}> = [
  {
    key: 'record',
    name: 'form locks (表单锁定)',
    lock: (f) => eachRecord(f, true),
    unlock: (f) => eachRecord(f, false),
  },
  {
    key: 'subject',
    name: 'a casebook lock (病例锁定)',
    lock: (f) => lockCall({ scope: 'subject', targetId: f.subjectRecordId, locked: true }),
    unlock: (f) => lockCall({ scope: 'subject', targetId: f.subjectRecordId, locked: false }),
  },
  {
    key: 'site',
    name: 'a site lock (中心锁定)',
    lock: () => lockCall({ scope: 'site', targetId: s.siteA, locked: true }),
    unlock: () => lockCall({ scope: 'site', targetId: s.siteA, locked: false }),
  },
  {
    key: 'study',
    name: 'a study lock (数据库锁定)',
    lock: () => lockCall({ scope: 'study', locked: true }),
    unlock: () => lockCall({ scope: 'study', locked: false }),
  },
  { key: 'finished', name: 'a finished study (已结束)', lock: () => setStatus(1), unlock: () => setStatus(0) },
];

/** What the refusal says: a live lock's words, or the freeze. */
async function refusalTexts() {
  const locks = (await t.call(s.admin, 'GET', `/api/business/lock?studyId=${s.studyId}`)).body.data as Array<{
    message: string;
  }>;
  return locks.length > 0 ? locks.map((l) => l.message) : [STUDY_FROZEN_MSG];
}

beforeAll(async () => {
  t = await createTestApp();
  s = await openTwoSiteStudy(t);
  aeCrf = await enableAe(t, s.admin, s.studyId);
  history = s.crfIds['人口学资料']!;
  surgery = s.crfIds['手术记录']!;
  vitals = s.crfIds['生命体征']!;
  labs = s.crfIds['实验室检查']!;
  imaging = s.crfIds['影像学检查']!;
  const made = await http('POST', '/api/business/lab-ranges', {
    studyId: s.studyId,
    siteId: s.siteA,
    ...range,
    effectiveFrom: '2020-01-01',
  });
  expect(made.ok, JSON.stringify(made)).toBe(true);
  rangeId = (await t.db.select().from(labReferenceRanges).where(eq(labReferenceRanges.siteId, s.siteA)))[0]!.id;
  await setUpCoding(t, s.admin, s.studyId, history);
  const items = await t.call(s.admin, 'PUT', '/api/business/coding/items', {
    studyId: s.studyId,
    items: [
      { crfId: history, itemName: 'history_note', kind: 'meddra' },
      { crfId: surgery, itemName: 'complication_note', kind: 'meddra' },
    ],
  });
  expect(items.status, JSON.stringify(items.body)).toBe(200);
});
afterAll(() => t.close());

describe('locked data takes no code, mark, query, SAE report, double entry or site range (issue 37 × docs/multi-centre.md)', () => {
  for (const scope of SCOPES) {
    it(`${scope.name}: each issue-37 writer it holds is refused naming the lock and writes nothing; once lifted each passes`, async () => {
      const f = await fixture();
      await scope.lock(f);
      let locked = true;
      onTestFinished(async () => {
        // A failure while locked must not leave the next scope's patient locked.
        if (locked) await scope.unlock(f);
      });
      const texts = await refusalTexts();
      for (const writer of WRITERS) {
        const before = await studyFingerprint(t, s.studyId, TABLES);
        const out = await writer.run(f);
        if (writer.heldBy && !writer.heldBy.includes(scope.key)) {
          expect(out.ok, `${writer.name} is not held by ${scope.key}: ${JSON.stringify(out)}`).toBe(true);
          expect(await studyFingerprint(t, s.studyId, TABLES), writer.name).not.toEqual(before);
          continue;
        }
        expect(out.ok, `${writer.name}: ${JSON.stringify(out)}`).toBe(false);
        expect(out.status, writer.name).toBe(writer.refusedStatus ?? 423);
        expect(
          texts.some((text) => out.msg.includes(text)),
          `${writer.name}: ${out.msg}`,
        ).toBe(true);
        expect(await studyFingerprint(t, s.studyId, TABLES), writer.name).toEqual(before);
      }
      await scope.unlock(f);
      locked = false;
      for (const writer of WRITERS) {
        const before = await studyFingerprint(t, s.studyId, TABLES);
        const out = await writer.run(f);
        expect(out.ok, `${writer.name} after unlocking: ${JSON.stringify(out)}`).toBe(true);
        expect(await studyFingerprint(t, s.studyId, TABLES), writer.name).not.toEqual(before);
      }
    });
  }
});
