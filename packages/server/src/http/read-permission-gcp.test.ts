import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allStudyPermissionKeys, buttonKey, crfKey } from '@ecrf/core';
import { anHourAgo, enableAe, runQuality, saveForm, saveSeriousAe, setUpCoding } from '../test/gcp-fixture.js';
import { addStudyMember } from '../test/study-member.js';
import { openDemoStudy } from '../test/demo.js';
import { createTestApp, type TestApp } from '../test/test-app.js';

/**
 * The read-permission matrix of issue 37's read routes (批注, 缺失原因, 数据核查, 不良事件/SAE, 医学编码, 参考范围,
 * 双份录入): every GET route × (a member with an empty role, the route's own key alone, somebody of another study
 * holding every key, full access). The route's key is its module's study button, or the form's view key for comments,
 * the ranges a form's save would use (参考范围 applicable) and one's own double entry; the study's settings
 * (missing-data codes, the AE module switch, the forms set to double entry) are every member's. Beyond the status, a
 * key opens only the forms the role may view: comments, coded items and double-entry pairs of a form need its view key
 * too.
 */
let t: TestApp;
let admin: string;
let studyId: number;
let vitals: number;
let history: number;
let vitalsRecord: number;
let historyRecord: number;
let runId: number;
let dictionaryId: number;
let saeReportId: number;
let subjectRecordId: number;
const who = {
  empty: '',
  vitals: '',
  quality: '',
  safety: '',
  coder: '',
  coderHistory: '',
  outsider: '',
  labRanges: '',
  reconciler: '',
  reconcilerBlind: '',
};

const QUALITY = buttonKey('business.quality');
const SAFETY = buttonKey('business.safety');
const CODER = buttonKey('business.coding');
const LAB_RANGES = buttonKey('business.labRanges');
const RECONCILE = buttonKey('business.doubleEntry.reconcile');

const member = (userName: string, permissions: string[]) =>
  addStudyMember(t, admin, studyId, userName, { permissions });

beforeAll(async () => {
  t = await createTestApp();
  let crfIds: Record<string, number>;
  ({ admin, studyId, crfIds } = await openDemoStudy(t));
  vitals = crfIds['生命体征']!;
  history = crfIds['人口学资料']!;
  const enrolled = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName: '周十',
    gender: 1,
    diseaseCode: 'LSS',
  });
  expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
  subjectRecordId = enrolled.body.data.subjectRecordId as number;
  const aeCrf = await enableAe(t, admin, studyId);
  dictionaryId = await setUpCoding(t, admin, studyId, history);
  // 收缩压 left blank: a finding of 必填项未填写 on 生命体征.
  vitalsRecord = await saveForm(t, admin, { subjectRecordId, crfId: vitals, values: { dbp: '80', hr: '72' } });
  historyRecord = await saveForm(t, admin, { subjectRecordId, crfId: history, values: { history_note: '头痛' } });
  await saveSeriousAe(t, admin, subjectRecordId, aeCrf);
  saeReportId = (await t.call(admin, 'GET', `/api/business/safety/saes?studyId=${studyId}`)).body.data.list[0]
    .saeReportId as number;
  const comment = await t.call(admin, 'POST', '/api/business/crf/comment', {
    studyId,
    crfDataRecordId: vitalsRecord,
    itemName: 'hr',
    content: '来源：门诊病历',
  });
  expect(comment.status, JSON.stringify(comment.body)).toBe(200);
  runId = await runQuality(t, admin, studyId);

  who.empty = await member('13300000001', []);
  who.vitals = await member('13300000002', [crfKey(vitals, 'view')]);
  who.quality = await member('13300000003', [QUALITY]);
  who.safety = await member('13300000004', [SAFETY]);
  who.coder = await member('13300000005', [CODER]);
  who.coderHistory = await member('13300000006', [CODER, crfKey(history, 'view')]);
  who.labRanges = await member('13300000007', [LAB_RANGES]);
  who.reconciler = await member('13300000008', [RECONCILE, crfKey(vitals, 'view')]);
  who.reconcilerBlind = await member('13300000010', [RECONCILE]);
  // 双份录入: 生命体征 set to double entry after its record was saved; two entries of that record, both done, for
  // the reconcilers to compare. The entering users hold the form's keys only and are in no row below.
  const config = { studyId, crfId: vitals, doubleEntry: true };
  const set = await t.call(admin, 'PUT', '/api/business/study/crf/double_entry', config);
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  for (const [userName, hr] of [
    ['13300000011', '72'],
    ['13300000012', '75'],
  ] as const) {
    const enterer = await member(userName, [crfKey(vitals, 'view'), crfKey(vitals, 'save')]);
    const entry = { studyId, subjectRecordId, crfId: vitals, crfDataRecordId: vitalsRecord };
    const saved = await t.call(enterer, 'PUT', '/api/business/double-entry/entry', { ...entry, values: { hr } });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const done = await t.call(enterer, 'POST', '/api/business/double-entry/done', entry);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
  }
  const other = await t.call(admin, 'POST', '/api/business/study', { studyName: '外院研究', studyCode: 'GCP-OUT' });
  expect(other.status, JSON.stringify(other.body)).toBe(200);
  const otherId = other.body.data.id as number;
  who.outsider = await addStudyMember(t, admin, otherId, '13300000009', {
    permissions: allStudyPermissionKeys([]),
  });
  expect(anHourAgo(t)).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d$/);
});
afterAll(() => t.close());

const get = async (token: string, url: string) => {
  const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
  // The SAE report export answers a Word document, not the envelope.
  const json = String(res.headers['content-type'] ?? '').includes('json');
  return { status: res.statusCode, body: (json ? res.json() : {}) as { data: any; msg: string } };
};

/** Who the route opens to: every member, a study button's holders, or the viewers of the record's form. */
type Opens = 'member' | 'quality' | 'safety' | 'coder' | 'vitals' | 'labRanges' | 'reconcile' | 'reconcileList';

const vitalsInstance = () =>
  `studyId=${studyId}&subjectRecordId=${subjectRecordId}&crfId=${vitals}&crfDataRecordId=${vitalsRecord}`;

/** The matrix: each issue-37 GET route of the OpenAPI document, with a call and whom it opens to. */
const ROUTES: Record<string, { opens: Opens; url: () => string }> = {
  'GET /api/business/crf/comments': {
    opens: 'vitals',
    url: () => `/api/business/crf/comments?studyId=${studyId}&crfDataRecordId=${vitalsRecord}`,
  },
  'GET /api/business/study/missing_codes': {
    opens: 'member',
    url: () => `/api/business/study/missing_codes?studyId=${studyId}`,
  },
  'GET /api/business/safety/module': { opens: 'member', url: () => `/api/business/safety/module?studyId=${studyId}` },
  'GET /api/business/safety/saes': { opens: 'safety', url: () => `/api/business/safety/saes?studyId=${studyId}` },
  'GET /api/business/safety/count': { opens: 'safety', url: () => `/api/business/safety/count?studyId=${studyId}` },
  'GET /api/business/safety/report/export': {
    opens: 'safety',
    url: () => `/api/business/safety/report/export?studyId=${studyId}&reportId=${saeReportId}&format=cioms`,
  },
  'GET /api/business/quality/runs': { opens: 'quality', url: () => `/api/business/quality/runs?studyId=${studyId}` },
  'GET /api/business/quality/run': {
    opens: 'quality',
    url: () => `/api/business/quality/run?studyId=${studyId}&runId=${runId}`,
  },
  'GET /api/business/quality/findings': {
    opens: 'quality',
    url: () => `/api/business/quality/findings?studyId=${studyId}&runId=${runId}`,
  },
  'GET /api/business/quality/dashboard': {
    opens: 'quality',
    url: () => `/api/business/quality/dashboard?studyId=${studyId}`,
  },
  'GET /api/business/coding/dictionaries': {
    opens: 'coder',
    url: () => `/api/business/coding/dictionaries?studyId=${studyId}`,
  },
  'GET /api/business/coding/settings': {
    opens: 'coder',
    url: () => `/api/business/coding/settings?studyId=${studyId}`,
  },
  'GET /api/business/coding/items': { opens: 'coder', url: () => `/api/business/coding/items?studyId=${studyId}` },
  'GET /api/business/coding/search': {
    opens: 'coder',
    url: () => `/api/business/coding/search?studyId=${studyId}&kind=meddra&q=${encodeURIComponent('头痛')}`,
  },
  'GET /api/business/coding/upgrade-impact': {
    opens: 'coder',
    url: () => `/api/business/coding/upgrade-impact?studyId=${studyId}&dictionaryId=${dictionaryId}`,
  },
  // 参考范围: the settings' routes need the study key 参考范围; the ranges a form's save would use are the form page's.
  'GET /api/business/lab-ranges': { opens: 'labRanges', url: () => `/api/business/lab-ranges?studyId=${studyId}` },
  'GET /api/business/lab-ranges/template': {
    opens: 'labRanges',
    url: () => `/api/business/lab-ranges/template?studyId=${studyId}`,
  },
  'GET /api/business/lab-ranges/applicable': {
    opens: 'vitals',
    url: () => `/api/business/lab-ranges/applicable?${vitalsInstance()}`,
  },
  // 双份录入: which forms are set to double entry is every member's (the form page asks); one's own entry needs the
  // form's view key; the reconciler's views need 双录入核对 (and the form's view key, checked by the service).
  'GET /api/business/study/crf/double_entry': {
    opens: 'member',
    url: () => `/api/business/study/crf/double_entry?studyId=${studyId}`,
  },
  'GET /api/business/double-entry/entry': {
    opens: 'vitals',
    url: () => `/api/business/double-entry/entry?${vitalsInstance()}`,
  },
  'GET /api/business/double-entry/compare': {
    opens: 'reconcile',
    url: () => `/api/business/double-entry/compare?${vitalsInstance()}`,
  },
  // 双录入核对's list of the study's pairs.
  'GET /api/business/double-entry/pending': {
    opens: 'reconcileList',
    url: () => `/api/business/double-entry/pending?studyId=${studyId}`,
  },
};

/** The OpenAPI tags of issue 37's modules: every GET route under them must have a row. */
const TAGS = new Set(['批注', '数据核查', '不良事件', '医学编码', '参考范围', '双份录入']);
/**
 * Routes being built alongside this matrix (the SAE report export): their authors enter their rows here and take
 * them off this list; a route both listed and ruled fails the check below.
 */
const PENDING = new Set<string>([]);

describe('issue 37 read routes × study roles', () => {
  it('the matrix covers every GET route of 批注, 数据核查, 不良事件, 医学编码, 参考范围, 双份录入 and the missing-data codes', () => {
    const doc = t.app.swagger() as unknown as {
      paths: Record<string, Record<string, { tags?: string[] }>>;
    };
    const reads = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.entries(ops)
        .filter(
          ([method, op]) => method === 'get' && (op.tags?.some((tag) => TAGS.has(tag)) || p.endsWith('/missing_codes')),
        )
        .map(() => `GET ${p}`),
    );
    expect(
      reads.filter((r) => !(r in ROUTES) && !PENDING.has(r)),
      'read routes without a row',
    ).toEqual([]);
    expect(
      [...PENDING].filter((r) => r in ROUTES),
      'pending routes that have a row now',
    ).toEqual([]);
    expect(
      Object.keys(ROUTES).filter((r) => !reads.includes(r)),
      'rows of no route',
    ).toEqual([]);
  });

  it.each(Object.entries(ROUTES))(
    '%s: its key opens it; an empty role, another key and another study do not',
    async (_route, row) => {
      const url = row.url();
      expect((await get(admin, url)).status, 'full access').toBe(200);
      expect((await get(who.outsider, url)).status, 'another study').toBe(403);
      const everyone = [who.empty, who.vitals, who.quality, who.safety, who.coder, who.labRanges, who.reconcilerBlind];
      const holders: Record<Opens, string[]> = {
        member: everyone,
        vitals: [who.vitals, who.reconciler],
        quality: [who.quality],
        safety: [who.safety],
        coder: [who.coder, who.coderHistory],
        labRanges: [who.labRanges],
        reconcile: [who.reconciler],
        // The list opens with 双录入核对 alone; it names only pairs of forms the reconciler may view (test below).
        reconcileList: [who.reconciler, who.reconcilerBlind],
      };
      for (const token of holders[row.opens]) {
        const res = await get(token, url);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
      }
      if (row.opens !== 'member') {
        const others = everyone.filter((token) => !holders[row.opens].includes(token));
        for (const token of others) expect((await get(token, url)).status).toBe(403);
      }
    },
  );

  it('comments are read with the form’s view key: 生命体征’s viewer reads its comments, not another form’s', async () => {
    const mine = await get(who.vitals, ROUTES['GET /api/business/crf/comments']!.url());
    expect(JSON.stringify(mine.body.data)).toContain('来源：门诊病历');
    const other = await get(
      who.vitals,
      `/api/business/crf/comments?studyId=${studyId}&crfDataRecordId=${historyRecord}`,
    );
    expect(other.status).toBe(403);
  });

  it('医学编码 lists a coded item only to a coder who may view its form', async () => {
    const url = ROUTES['GET /api/business/coding/items']!.url();
    expect((await get(who.coder, url)).body.data).toEqual({ list: [], total: 0 });
    const viewer = (await get(who.coderHistory, url)).body.data;
    expect(viewer.total).toBe(1);
    expect(viewer.list[0]).toMatchObject({ crfDataRecordId: historyRecord, verbatim: '头痛' });
  });

  it('数据核查 shows a finding about a form only to a holder who may view that form', async () => {
    const url = ROUTES['GET /api/business/quality/findings']!.url();
    const all = (await get(admin, url)).body.data;
    expect(all.list.some((f: { crfDataRecordId: number }) => f.crfDataRecordId === vitalsRecord)).toBe(true);
    const blind = (await get(who.quality, url)).body.data;
    expect(blind.list.filter((f: { crfId: number | null }) => f.crfId !== null)).toEqual([]);
    expect(blind.total).toBe(blind.list.length);
    const counts = (await get(who.quality, ROUTES['GET /api/business/quality/run']!.url())).body.data;
    expect(counts.findingsCount).toBe(blind.total);
  });

  it('SAE reports are read with 安全性报告, not with the AE form’s view key (docs/decisions.md, issue 37)', async () => {
    const reports = (await get(who.safety, ROUTES['GET /api/business/safety/saes']!.url())).body.data;
    expect(reports.total).toBe(1);
    expect((await get(who.safety, ROUTES['GET /api/business/safety/count']!.url())).body.data).toEqual({ pending: 1 });
  });

  it('双录入核对 needs the form’s view key too: a reconciler who may not view 生命体征 neither compares nor lists it', async () => {
    const compare = ROUTES['GET /api/business/double-entry/compare']!.url();
    const both = (await get(who.reconciler, compare)).body.data;
    expect([both.entry1.values.hr, both.entry2.values.hr]).toEqual(['72', '75']);
    expect((await get(who.reconcilerBlind, compare)).status).toBe(403);
    const pending = ROUTES['GET /api/business/double-entry/pending']!.url();
    expect((await get(who.reconciler, pending)).body.data.total).toBe(1);
    expect((await get(who.reconcilerBlind, pending)).body.data).toEqual({ list: [], total: 0 });
  });

  it('one’s own double entry is read with the form’s view key: another form’s is refused', async () => {
    const other = `/api/business/double-entry/entry?studyId=${studyId}&subjectRecordId=${subjectRecordId}&crfId=${history}`;
    expect((await get(who.vitals, other)).status).toBe(403);
    const mine = (await get(who.vitals, ROUTES['GET /api/business/double-entry/entry']!.url())).body.data;
    // Blind: a viewer who typed neither entry reads neither's values.
    expect(mine.entry).toBeNull();
    expect(JSON.stringify(mine)).not.toContain('"75"');
  });
});
