import { eq } from 'drizzle-orm';
import { STUDY_FROZEN_MSG } from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { crfDataRecords } from '../../db/schema/index.js';
import { studyFingerprint } from '../../test/gcp-fixture.js';
import { multipart } from '../../test/multipart.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { openTwoSiteStudy, type TwoSiteStudy } from '../../test/two-sites.js';

/**
 * 参考范围 (issue 37) under locks (docs/multi-centre.md, locks; docs/data-quality.md, 参考范围). A site's ranges are
 * study configuration: a save stores the ranges it judged by with the record (crf_data_records.lab_ranges), so a
 * change of ranges never rewrites a stored record. A locked or finished study (数据库锁定, 已结束) refuses adding,
 * changing, deleting and importing ranges (the import's preview too), a site lock (中心锁定) the ranges of that site,
 * each with the lock's words (423) and nothing written; once lifted each passes. Form and casebook locks do not hold
 * ranges: a change passes and the locked record keeps the ranges it was judged by.
 */
let t: TestApp;
let s: TwoSiteStudy;
let labRecord: number;
let rangeA: number;
let rangeB: number;

const BASE = '/api/business/lab-ranges';
const TABLES = ['lab_reference_ranges', 'audit_events', 'crf_data_records'];
const wbc = {
  analyte: 'WBC',
  analyteName: '白细胞计数',
  unit: '10^9/L',
  sex: null,
  ageMin: 18,
  ageMax: null,
  lower: 3.5,
  upper: 6,
  effectiveFrom: '2020-01-01',
};

type Outcome = { status: number; msg: string; ok: boolean };

const http = async (method: string, url: string, body?: object): Promise<Outcome> => {
  const res = await t.call(s.admin, method, url, body);
  return { status: res.status, msg: res.body.msg, ok: res.status === 200 };
};
const create = async (siteId: number, more: object = {}) => {
  const res = await t.call(s.admin, 'POST', BASE, { studyId: s.studyId, siteId, ...wbc, ...more });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.id as number;
};

let imports = 0;
async function upload(siteName: string, dryRun: boolean): Promise<Outcome> {
  imports += 1;
  const csv = `分中心,项目代码,项目名称,单位,性别,年龄下限,年龄上限,下限,上限,生效日期\n${siteName},K${imports},钾,mmol/L,,,,3.5,5.3,2020-01-01`;
  const body = multipart({}, [{ fileName: 'ranges.csv', data: csv }]);
  const res = await t.app.inject({
    method: 'POST',
    url: `${BASE}/import?studyId=${s.studyId}&dryRun=${dryRun}`,
    headers: { authorization: `Bearer ${s.admin}`, ...body.headers },
    payload: body.payload,
  });
  const json = res.json() as { msg: string; data: { imported?: number; accepted?: unknown[] } | null };
  const ok = res.statusCode === 200 && (dryRun ? json.data?.accepted?.length === 1 : json.data?.imported === 1);
  return { status: res.statusCode, msg: json.msg, ok };
}

interface Writer {
  name: string;
  /** The preview writes nothing, locked or not. */
  writes?: false;
  run: (site: { id: number; name: string; range: number; spare: number }) => Promise<Outcome>;
}

/** Every writer of ranges, on one site's ranges: the range to change and a spare one to delete. */
const WRITERS: Writer[] = [
  { name: 'add a range', run: (site) => http('POST', BASE, { studyId: s.studyId, siteId: site.id, ...wbc }) },
  {
    name: 'change a range',
    run: async (site) =>
      http('PUT', `${BASE}/${site.range}`, {
        studyId: s.studyId,
        siteId: site.id,
        ...wbc,
        upper: 6 + imports / 10,
        reason: '检验科更新',
      }),
  },
  {
    name: 'delete a range',
    run: (site) => http('DELETE', `${BASE}/${site.spare}?studyId=${s.studyId}&reason=${encodeURIComponent('误录')}`),
  },
  { name: 'import preview', writes: false, run: (site) => upload(site.name, true) },
  { name: 'import', run: (site) => upload(site.name, false) },
];

const lockCall = async (body: object) => {
  const res = await t.call(s.admin, 'PUT', '/api/business/lock', { studyId: s.studyId, reason: '核查完成', ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};
const setStatus = async (status: number) => {
  const res = await t.call(s.admin, 'PUT', '/api/business/study', { id: s.studyId, status, reason: '重新开启' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};
const locking = (scope: string, targetId?: () => number) => ({
  lock: () => lockCall({ scope, targetId: targetId?.(), locked: true }),
  unlock: () => lockCall({ scope, targetId: targetId?.(), locked: false }),
});

/** What the refusal says: a live lock's words, or the freeze. */
async function refusalTexts() {
  const locks = (await t.call(s.admin, 'GET', `/api/business/lock?studyId=${s.studyId}`)).body.data as Array<{
    message: string;
  }>;
  return locks.length > 0 ? locks.map((l) => l.message) : [STUDY_FROZEN_MSG];
}

const storedRanges = async () =>
  (await t.db.select().from(crfDataRecords).where(eq(crfDataRecords.id, labRecord)))[0]!.labRanges;

beforeAll(async () => {
  t = await createTestApp();
  s = await openTwoSiteStudy(t);
  rangeA = await create(s.siteA);
  rangeB = await create(s.siteB, { lower: 4, upper: 10 });
  const saved = await t.call(s.admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId: s.patientA.subjectRecordId,
    crfId: s.crfIds['实验室检查'],
    version: 0,
    values: { wbc: '8.2' },
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  labRecord = saved.body.data.crfDataRecordId as number;
  expect(await storedRanges()).toMatchObject({ wbc: { lower: 3.5, upper: 6, source: 'site' } });
});
afterAll(() => t.close());

const siteA = async () => ({ id: s.siteA, name: '甲中心', range: rangeA, spare: await create(s.siteA) });
const siteB = async () => ({ id: s.siteB, name: '乙中心', range: rangeB, spare: await create(s.siteB) });

/** Runs every writer on a site's ranges and expects each to pass and write. */
async function allPass(site: Awaited<ReturnType<typeof siteA>>, when: string) {
  for (const writer of WRITERS) {
    const before = await studyFingerprint(t, s.studyId, TABLES);
    const out = await writer.run(site);
    expect(out.ok, `${writer.name} ${when}: ${JSON.stringify(out)}`).toBe(true);
    if (writer.writes !== false) {
      expect(await studyFingerprint(t, s.studyId, TABLES), writer.name).not.toEqual(before);
    }
  }
}

const REFUSING = [
  { name: 'a study lock (数据库锁定)', ...locking('study') },
  { name: 'a finished study (已结束)', lock: () => setStatus(1), unlock: () => setStatus(0) },
  { name: 'a site lock (中心锁定)', ...locking('site', () => s.siteA) },
];

describe('参考范围 under locks (issue 37 × docs/multi-centre.md)', () => {
  for (const scope of REFUSING) {
    it(`${scope.name}: adding, changing, deleting and importing site A’s ranges is refused naming the lock and writes nothing; once lifted each passes`, async () => {
      const site = await siteA();
      await scope.lock();
      let locked = true;
      onTestFinished(async () => {
        if (locked) await scope.unlock();
      });
      const texts = await refusalTexts();
      for (const writer of WRITERS) {
        const before = await studyFingerprint(t, s.studyId, TABLES);
        const out = await writer.run(site);
        expect(out.ok, `${writer.name}: ${JSON.stringify(out)}`).toBe(false);
        expect(out.status, writer.name).toBe(423);
        expect(
          texts.some((text) => out.msg.includes(text)),
          `${writer.name}: ${out.msg}`,
        ).toBe(true);
        expect(await studyFingerprint(t, s.studyId, TABLES), writer.name).toEqual(before);
      }
      await scope.unlock();
      locked = false;
      await allPass(site, 'once lifted');
    });
  }

  it('a site lock holds only that site’s ranges: site B’s pass while site A is locked; moving a range into it is refused', async () => {
    await lockCall({ scope: 'site', targetId: s.siteA, locked: true });
    onTestFinished(() => lockCall({ scope: 'site', targetId: s.siteA, locked: false }));
    await allPass(await siteB(), 'with site A locked');
    const before = await studyFingerprint(t, s.studyId, TABLES);
    const moved = await http('PUT', `${BASE}/${rangeB}`, {
      studyId: s.studyId,
      siteId: s.siteA,
      ...wbc,
      reason: '移至甲中心',
    });
    expect(moved.status, JSON.stringify(moved)).toBe(423);
    expect(await studyFingerprint(t, s.studyId, TABLES)).toEqual(before);
  });

  for (const scope of [
    { name: 'a form lock (表单锁定)', ...locking('record', () => labRecord) },
    { name: 'a casebook lock (病例锁定)', ...locking('subject', () => s.patientA.subjectRecordId) },
  ]) {
    it(`${scope.name} does not hold ranges: each writer passes and the locked record keeps the ranges it was judged by`, async () => {
      const stored = await storedRanges();
      await scope.lock();
      onTestFinished(() => scope.unlock());
      await allPass(await siteA(), 'under a form or casebook lock');
      expect(await storedRanges()).toEqual(stored);
    });
  }
});
