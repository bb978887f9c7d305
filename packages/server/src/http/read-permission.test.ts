import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonKey, crfKey } from '@ecrf/core';
import { auditEvents, menus } from '../db/schema/index.js';
import { multipart } from '../test/multipart.js';
import { createTestApp, type TestApp } from '../test/test-app.js';
import { addStudyMember } from '../test/study-member.js';
import { openDemoStudy } from '../test/demo.js';

/**
 * Every read route applies the form page's rule (per-CRF view): a member whose study role grants
 * nothing reads no form value through any of them, and a member who may view one form reads that
 * form only. The matrix: each read route × (empty role, one-form role, full access).
 */
let t: TestApp;
let admin: string;
let studyId: number;
let subjectRecordId: number;
let vitalsRecord: number;
let imagingRecord: number;
let fileKey: string;
let vitalsDoubt: number;
let imagingDoubt: number;
let imagingAuditId: number;
const crfIds: Record<string, number> = {};
const tokens: Record<'empty' | 'vitals', string> = { empty: '', vitals: '' };

const member = (userName: string, permissions: string[], menuIds: number[] = []) =>
  addStudyMember(t, admin, studyId, userName, { permissions }, menuIds);

beforeAll(async () => {
  t = await createTestApp();
  const demo = await openDemoStudy(t);
  ({ admin, studyId } = demo);
  Object.assign(crfIds, demo.crfIds);
  const enrolled = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName: '钱八',
    gender: 1,
    diseaseCode: 'LSS',
  });
  expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
  subjectRecordId = enrolled.body.data.subjectRecordId;

  const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
  const form = multipart({ studyId: String(studyId) }, [
    { fileName: 'xray.png', data: Buffer.concat([png, Buffer.alloc(64)]), type: 'image/png' },
  ]);
  const upload = await t.app.inject({
    method: 'POST',
    url: `/api/common/file/upload?studyId=${studyId}`,
    headers: { ...form.headers, authorization: `Bearer ${admin}` },
    payload: form.payload,
  });
  expect(upload.statusCode, upload.body).toBe(200);
  fileKey = upload.json().data.fileKey;

  const save = async (crfId: number, values: object) => {
    const res = await t.call(admin, 'PUT', '/api/v3/business/crf', { subjectRecordId, crfId, version: 0, values });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.crfDataRecordId as number;
  };
  vitalsRecord = await save(crfIds['生命体征']!, { hr: 71, sbp: 128 });
  imagingRecord = await save(crfIds['影像学检查']!, {
    xray: [
      {
        dialogImgUrl: `/api/v1/fileupload/downfile?fileKey=${fileKey}`,
        uploadTime: '2026-11-22 08:00:00',
        remarks: '',
      },
    ],
  });
  const open = async (crfDataRecordId: number, itemName: string) =>
    (await t.call(admin, 'POST', '/api/business/doubt/open', { crfDataRecordId, itemName, doubtDescription: '请核实' }))
      .body.data.doubtId as number;
  vitalsDoubt = await open(vitalsRecord, 'hr');
  imagingDoubt = await open(imagingRecord, 'xray');
  const [row] = await t.db.select().from(auditEvents).where(eq(auditEvents.crfDataRecordId, imagingRecord));
  imagingAuditId = row!.id;

  tokens.empty = await member('13200000001', []);
  tokens.vitals = await member('13200000002', [crfKey(crfIds['生命体征']!, 'view')]);
});
afterAll(() => t.close());

const get = async (token: string, url: string) => {
  const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
  return {
    status: res.statusCode,
    body: String(res.headers['content-type'] ?? '').includes('json') ? res.json() : res.body,
  };
};

describe('read routes × study roles', () => {
  it('a study role with no form permission reads no form value, query, history entry or file through any route', async () => {
    const who = tokens.empty;
    const vitals = crfIds['生命体征']!;
    expect((await get(who, `/api/v3/business/crf/${subjectRecordId}?crfId=${vitals}`)).status).toBe(403);
    expect((await get(who, `/api/business/crf/data/list/${subjectRecordId}?crfId=${vitals}`)).status).toBe(403);
    expect((await get(who, `/api/business/crf/audit?crfDataRecordId=${vitalsRecord}`)).status).toBe(403);
    expect(
      (await get(who, `/api/v1/business/crf/print/word?subjectRecordId=${subjectRecordId}&crfId=${vitals}`)).status,
    ).toBe(403);
    expect((await get(who, `/api/business/subjectRecord/operate?id=${imagingAuditId}`)).status).toBe(403);
    expect((await get(who, `/api/business/doubt/${vitalsDoubt}`)).status).toBe(403);
    expect((await get(who, `/api/v1/fileupload/downfile?fileKey=${fileKey}`)).status).toBe(403);
    expect((await get(who, `/api/business/audit/export?studyId=${studyId}`)).status).toBe(403);

    const history = (
      await get(who, `/api/business/subjectRecord/operates?subjectRecordId=${subjectRecordId}&pageSize=100`)
    ).body.data;
    expect(history.list.length).toBeGreaterThan(0);
    expect(history.list.every((e: { crfId: number | null }) => e.crfId === null)).toBe(true);
    expect(history.total).toBe(history.list.length);
    const doubts = (await get(who, `/api/business/doubts?studyId=${studyId}`)).body.data;
    expect(doubts).toEqual({ list: [], total: 0 });
    const overview = (await get(who, `/api/v3/business/overview/${subjectRecordId}`)).body.data;
    expect(overview.crfs).toEqual([]);
    const menu = (await get(who, `/api/business/crf/menu/${subjectRecordId}`)).body.data;
    expect(JSON.stringify(menu)).not.toContain('"crfId"');
  });

  it('a study role that views one form reads that form only, whatever route it takes', async () => {
    const who = tokens.vitals;
    expect(
      String(
        (await get(who, `/api/v3/business/crf/${subjectRecordId}?crfId=${crfIds['生命体征']}`)).body.data.crfDataRecord
          .values.hr,
      ),
    ).toBe('71');
    expect((await get(who, `/api/v3/business/crf/${subjectRecordId}?crfId=${crfIds['影像学检查']}`)).status).toBe(403);
    expect((await get(who, `/api/business/crf/audit?crfDataRecordId=${imagingRecord}`)).status).toBe(403);
    expect((await get(who, `/api/business/crf/audit?crfDataRecordId=${vitalsRecord}`)).status).toBe(200);
    expect((await get(who, `/api/business/subjectRecord/operate?id=${imagingAuditId}`)).status).toBe(403);
    expect((await get(who, `/api/business/doubt/${vitalsDoubt}`)).status).toBe(200);
    expect((await get(who, `/api/business/doubt/${imagingDoubt}`)).status).toBe(403);
    expect((await get(who, `/api/v1/fileupload/downfile?fileKey=${fileKey}`)).status).toBe(403);

    const history = (
      await get(who, `/api/business/subjectRecord/operates?subjectRecordId=${subjectRecordId}&pageSize=100`)
    ).body.data.list as Array<{ crfId: number | null }>;
    expect(new Set(history.map((e) => e.crfId).filter((id) => id !== null))).toEqual(new Set([crfIds['生命体征']]));
    const doubts = (await get(who, `/api/business/doubts?studyId=${studyId}`)).body.data;
    expect(doubts.list.map((d: { doubtId?: number; id?: number }) => d.doubtId ?? d.id)).toEqual([vitalsDoubt]);
    const overview = (await get(who, `/api/v3/business/overview/${subjectRecordId}`)).body.data;
    expect(overview.crfs.map((c: { crfId: number }) => c.crfId)).toEqual([crfIds['生命体征']]);
  });

  it('full access reads everything, the file included', async () => {
    expect((await get(admin, `/api/v1/fileupload/downfile?fileKey=${fileKey}`)).status).toBe(200);
    expect((await get(admin, `/api/business/doubt/${imagingDoubt}`)).status).toBe(200);
    expect((await get(admin, `/api/business/doubts?studyId=${studyId}`)).body.data.total).toBe(2);
    const csv = (await get(admin, `/api/business/audit/export?studyId=${studyId}`)).body as string;
    expect(csv).toContain(String(imagingRecord));
  });

  it('a member who may view the form holding an image reads the image', async () => {
    const imagingViewer = await member('13200000003', [crfKey(crfIds['影像学检查']!, 'view')]);
    expect((await get(imagingViewer, `/api/v1/fileupload/downfile?fileKey=${fileKey}`)).status).toBe(200);
  });
});

describe('randomization read routes × study roles', () => {
  it('RAND-04: members read the configuration, sites, results and randomized patients; the allocation list needs the unblinded key', async () => {
    const saved = await t.call(admin, 'POST', '/api/business/randomization', {
      studyId,
      config: {
        method: 'block',
        arms: [
          { code: 'A', label: '试验组', ratio: 1 },
          { code: 'B', label: '对照组', ratio: 1 },
        ],
        blinded: true,
        blockSizes: [4],
        listLength: 20,
      },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const unblinded = await member('13200000005', ['btn:business.randomization.unblinded']);
    const routes = [
      `/api/business/randomization/config?studyId=${studyId}`,
      `/api/business/randomization/factor/depts?studyId=${studyId}`,
      `/api/business/randomization/result?studyId=${studyId}`,
      `/api/business/randomization/randomly_selected?studyId=${studyId}`,
    ];
    for (const url of routes) {
      expect((await get(tokens.empty, url)).status, url).toBe(200);
      expect((await get(unblinded, url)).status, url).toBe(200);
    }
    const list = `/api/business/randomization/list/config?studyId=${studyId}`;
    expect((await get(tokens.empty, list)).status).toBe(403);
    expect((await get(tokens.vitals, list)).status).toBe(403);
    expect((await get(unblinded, list)).body.data.total).toBe(20);
    expect((await get(admin, list)).status).toBe(200);
    // A blinded member sees no arm in any of them.
    const blind = (await get(tokens.empty, `/api/business/randomization/result?studyId=${studyId}`)).body.data;
    expect(blind).toMatchObject({ armsVisible: false, arms: null });
    const config = (await get(tokens.empty, `/api/business/randomization/config?studyId=${studyId}`)).body.data;
    expect(config.config.blockSizes).toBeUndefined();
  });
});

describe('the operation log × studies', () => {
  it("SYS-25: a study's staff read that study's operations only; the whole log is the administrators'", async () => {
    const [operlogMenu] = await t.db
      .select({ menuId: menus.menuId })
      .from(menus)
      .where(eq(menus.perms, 'monitor:operlog:list'));
    const coordinator = await member('13200000004', [], [operlogMenu!.menuId]);
    const other = await t.call(admin, 'POST', '/api/business/study', {
      studyName: '另一项研究',
      studyCode: 'OTHER-LOG',
    });
    expect(other.status, JSON.stringify(other.body)).toBe(200);
    const otherId = other.body.data.id as number;
    await t.call(admin, 'PUT', '/api/business/study', {
      id: otherId,
      studyName: '另一项研究（改）',
      studyCode: 'OTHER-LOG',
    });

    const mine = await get(coordinator, `/api/monitor/operlog/list?studyId=${studyId}&pageSize=100`);
    expect(mine.status).toBe(200);
    const entries = mine.body.data.list as Array<{ studyId: number; title: string }>;
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.every((e) => e.studyId === studyId)).toBe(true);
    expect(JSON.stringify(entries)).not.toContain('钱八');
    expect((await get(coordinator, `/api/monitor/operlog/list?studyId=${otherId}`)).status).toBe(403);
    expect((await get(coordinator, '/api/monitor/operlog/list')).status).toBe(403);
    // Staff without the operation-log permission read nothing, even of their own study.
    expect((await get(tokens.vitals, `/api/monitor/operlog/list?studyId=${studyId}`)).status).toBe(403);

    const whole = (await get(admin, '/api/monitor/operlog/list?pageSize=500')).body.data.list as Array<{
      studyId: number | null;
    }>;
    expect(whole.some((e) => e.studyId === otherId)).toBe(true);
    expect(whole.some((e) => e.studyId === null)).toBe(true);
  });
});

/**
 * The read routes added with retrieval, export, follow-up, the calendar and the dashboard follow the
 * same rule: a member reads the forms their role may view, identifiers only with 查看患者身份信息, and
 * somebody outside the study reads nothing.
 */
describe('retrieval, export, follow-up, calendar and dashboard reads × study roles', () => {
  let outsider: string;
  beforeAll(async () => {
    // Staff of another study, with every permission there.
    const other = await t.call(admin, 'POST', '/api/business/study', { studyName: '外院研究', studyCode: 'OUTSIDE' });
    expect(other.status, JSON.stringify(other.body)).toBe(200);
    outsider = await addStudyMember(t, admin, other.body.data.id as number, '13200000009', {
      permissions: [buttonKey('business.follow.record'), buttonKey('business.subject.identifiers')],
    });
  });

  const search = (token: string, crfId: number, itemName: string) =>
    t.call(token, 'POST', '/api/business/search/v2', {
      studyId,
      conditions: { join: 'and', groups: [] },
      columns: [
        { kind: 'patient', field: 'identificationCode' },
        { kind: 'item', crfId, itemName },
      ],
      pageNum: 1,
      pageSize: 10,
    });

  it('SRCH-02: the search dictionary, exportable forms and results hold only the forms a role may view', async () => {
    const vitals = crfIds['生命体征']!;
    const imaging = crfIds['影像学检查']!;
    for (const [who, expected] of [
      [tokens.empty, []],
      [tokens.vitals, ['生命体征']],
    ] as const) {
      const dics = (await get(who, `/api/business/search/dics?studyId=${studyId}`)).body.data;
      expect(dics.crfs.map((c: { title: string }) => c.title)).toEqual(expected);
      const exportable = (await get(who, `/api/business/search/export/crfs?studyId=${studyId}`)).body.data;
      expect(exportable.map((c: { title: string }) => c.title)).toEqual(expected);
      expect((await search(who, imaging, 'xray')).status).toBe(403);
    }
    expect((await search(tokens.empty, vitals, 'hr')).status).toBe(403);
    const found = await search(tokens.vitals, vitals, 'hr');
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    const rows = found.body.data.list as Array<{ cells: Record<string, string> }>;
    const mine = rows.find((r) => r.cells[`c${vitals}.hr`] === '71 次/分');
    expect(mine).toBeDefined();
    expect(JSON.stringify(rows)).not.toContain('钱八');
    // Without 查看患者身份信息 a name column is refused, not answered masked.
    const named = await t.call(tokens.vitals, 'POST', '/api/business/search/v2', {
      studyId,
      conditions: { join: 'and', groups: [] },
      columns: [{ kind: 'patient', field: 'subjectName' }],
    });
    expect(named.status).toBe(403);
  });

  it('the dashboard counts only viewable forms; the export log lists only the reader’s own exports', async () => {
    const figures = (await get(tokens.vitals, `/api/business/index?studyId=${studyId}`)).body.data as {
      formsByCrf: Array<{ crfId: number }>;
    };
    expect(figures.formsByCrf.map((f) => f.crfId)).toEqual([crfIds['生命体征']]);
    const emptyFigures = (await get(tokens.empty, `/api/business/index?studyId=${studyId}`)).body.data as {
      formsByCrf: unknown[];
    };
    expect(emptyFigures.formsByCrf).toEqual([]);
    const log = await get(tokens.vitals, `/api/business/search/export/log?studyId=${studyId}`);
    expect(log.status).toBe(200);
    expect(log.body.data.total).toBe(0);
  });

  it('follow-up reads need membership only (docs/follow-up.md); somebody outside the study reads none of these routes', async () => {
    const records = await get(tokens.vitals, `/api/business/follow/records?studyId=${studyId}`);
    expect(records.status).toBe(200);
    // 随访概览 counts what the record list lists: the same rule.
    expect((await get(tokens.vitals, `/api/business/follow/overview?studyId=${studyId}`)).status).toBe(200);
    // A patient's visits are the casebook's sidebar: every member who opens the casebook reads them.
    expect((await get(tokens.vitals, `/api/business/subject/follows?subjectRecordId=${subjectRecordId}`)).status).toBe(
      200,
    );
    for (const url of [
      `/api/business/search/dics?studyId=${studyId}`,
      `/api/business/search/export/crfs?studyId=${studyId}`,
      `/api/business/search/all_templates?studyId=${studyId}`,
      `/api/business/search/export/log?studyId=${studyId}`,
      `/api/business/index?studyId=${studyId}`,
      `/api/business/follows?studyId=${studyId}`,
      `/api/business/follow/records?studyId=${studyId}`,
      `/api/business/follow/overview?studyId=${studyId}`,
      `/api/business/subject/follows?subjectRecordId=${subjectRecordId}`,
      `/api/business/events?studyId=${studyId}&start=2026-11-01&end=2026-11-30`,
    ]) {
      const r = await get(outsider, url);
      expect(r.status, url + JSON.stringify(r.body)).toBe(403);
    }
    expect((await search(outsider, crfIds['生命体征']!, 'hr')).status).toBe(403);
  });

  it("an amendment's drill-down and workbook show a form's old and new values: they need that form's view key too", async () => {
    const [crfMenu] = await t.db.select({ menuId: menus.menuId }).from(menus).where(eq(menus.perms, 'study:crf'));
    const vitals = crfIds['生命体征']!;
    const imaging = crfIds['影像学检查']!;
    const viewer = await member('13900000071', [crfKey(vitals, 'view')], [crfMenu!.menuId]);
    const other = await member('13900000072', [crfKey(imaging, 'view')], [crfMenu!.menuId]);
    const opened = await t.call(admin, 'POST', '/api/system/crf/draft', { studyId, crfId: vitals });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    try {
      const query = `studyId=${studyId}&crfId=${vitals}`;
      for (const url of [
        `/api/system/crf/draft/impact/records?${query}&pageNum=1&pageSize=10`,
        `/api/system/crf/draft/impact/export?${query}`,
      ]) {
        expect((await get(viewer, url)).status, url).toBe(200);
        expect((await get(other, url)).status, url).toBe(403);
      }
    } finally {
      await t.call(admin, 'DELETE', `/api/system/crf/draft?studyId=${studyId}&crfId=${vitals}`);
    }
  });
});
