import ExcelJS from 'exceljs';
import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allStudyPermissionKeys } from '@ecrf/core';
import { auditEvents, crfDataRecords, menus, studyPersonnel, subjects, users } from '../../db/schema/index.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { ALL_SITES } from '../../test/two-sites.js';
import {
  enrol,
  jobEnded,
  openAmendmentStudy,
  save,
  uploadDraft,
  V2,
  type AmendmentStudy,
} from './amendment-test-kit.js';

/**
 * CRF drafts and amendments × sites (docs/multi-centre.md): the impact summary is counts, but the drill-down, the
 * workbook and the migration name or touch patients, so they keep to the caller's sites. Two records at each of
 * 甲中心 and 乙中心, whose values carry their site's marker, and a draft (随访评估 v2) that changes all four.
 */

let t: TestApp;
let s: AmendmentStudy;
let managerB: string;
let managerAll: string;
let amendmentId: number;
const R: Record<string, { id: number; code: string }> = {};
const A = ['A1', 'A2'];
const B = ['B1', 'B2'];
/** What must never reach site B's manager: site A's patients' codes, its values and its name. */
const siteAMarks = () => [...A.map((k) => R[k]!.code), '甲院吸烟', '甲院备注', '甲院评分', '甲中心'];

const ids = (keys: string[]) => keys.map((k) => R[k]!.id);
const recordsOf = (keys: string[]) =>
  t.db
    .select()
    .from(crfDataRecords)
    .where(inArray(crfDataRecords.id, ids(keys)))
    .orderBy(crfDataRecords.id);

/** A manager of the study holding CRF管理 (study:crf) and every study key but 查看全部中心数据 unless `allSites`. */
async function manager(userName: string, deptId: number, allSites: boolean) {
  const [crfMenu] = await t.db.select({ menuId: menus.menuId }).from(menus).where(eq(menus.perms, 'study:crf'));
  const keys = allStudyPermissionKeys([s.crfId]).filter((k) => allSites || k !== ALL_SITES);
  const token = await addStudyMember(t, s.admin, s.studyId, userName, { permissions: keys }, [crfMenu!.menuId]);
  const [user] = await t.db.select({ userId: users.userId }).from(users).where(eq(users.userName, userName));
  await t.db.update(users).set({ deptId }).where(eq(users.userId, user!.userId));
  await t.db
    .update(studyPersonnel)
    .set({ deptId })
    .where(and(eq(studyPersonnel.studyId, s.studyId), eq(studyPersonnel.userId, user!.userId)));
  return token;
}

beforeAll(async () => {
  t = await createTestApp();
  s = await openAmendmentStudy(t, (await t.login()).token);
  // A women's 吸烟史 is hidden by v2, 备注 removed, 评分 no integer, every 指数 recalculated: all four change.
  const cases: Array<[string, number, Record<string, unknown>]> = [
    ['A1', s.siteA, { sex: '2', smoke: '甲院吸烟', note: '甲院备注', score: '甲院评分', weight: '88' }],
    ['A2', s.siteA, { sex: '1', weight: '70' }],
    ['B1', s.siteB, { sex: '2', smoke: '乙院吸烟', note: '乙院备注', score: '乙院评分', weight: '66' }],
    ['B2', s.siteB, { sex: '1', weight: '60' }],
  ];
  for (const [key, siteId, values] of cases) {
    const p = await enrol(t, s, { siteId });
    const saved = await save(t, s, p.subjectRecordId, values);
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const [subject] = await t.db
      .select({ code: subjects.identificationCode })
      .from(subjects)
      .where(eq(subjects.id, p.subjectId));
    R[key] = { id: saved.body.data.crfDataRecordId, code: subject!.code };
  }
  expect((await uploadDraft(t, s.admin, s.studyId, V2)).status).toBe(200);
  managerB = await manager('13800000201', s.siteB, false);
  managerAll = await manager('13800000202', s.siteA, true);
});
afterAll(() => t.close());

const draftQ = () => `studyId=${s.studyId}&crfId=${s.crfId}`;

async function drillDown(token: string, url: string) {
  const res = await t.call(token, 'GET', `${url}&pageSize=100`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const rows = res.body.data.rows as Array<{ crfDataRecordId: number }>;
  expect(res.body.data.total).toBe(rows.length);
  return {
    recordIds: [...new Set(rows.map((r) => r.crfDataRecordId))].sort((a, b) => a - b),
    text: JSON.stringify(res.body),
  };
}

/** Every cell of every sheet of the workbook, as one text, and the record ids of its detail sheet. */
async function workbook(token: string, url: string) {
  const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
  const text = book.worksheets.map((w) => JSON.stringify(w.getSheetValues())).join('\n');
  const detail = (book.getWorksheet('明细')!.getSheetValues().slice(2) as unknown[][]).filter(Boolean);
  const recordIds = [...new Set(detail.map((r) => r[3] as number))].sort((a, b) => a - b);
  return { recordIds, text };
}

function expectNoSiteA(text: string) {
  for (const mark of siteAMarks()) expect(text, mark).not.toContain(mark);
}

async function migrateAs(token: string, scope: unknown) {
  const res = await t.call(token, 'POST', '/api/business/amendment/migrate', {
    studyId: s.studyId,
    amendmentId,
    scope,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return jobEnded(t, res.body.data.jobId as string);
}

describe('a CRF draft’s impact report × sites', () => {
  it('the drill-down of a site-B manager names only site B’s records; an all-sites manager’s names both', async () => {
    const url = `/api/system/crf/draft/impact/records?${draftQ()}`;
    const mine = await drillDown(managerB, url);
    expect(mine.recordIds).toEqual(ids(B));
    expect(mine.text).toContain('乙院备注');
    expectNoSiteA(mine.text);
    const all = await drillDown(managerAll, url);
    expect(all.recordIds).toEqual(ids([...A, ...B]).sort((a, b) => a - b));
    // The markers are there to be found when the caller may see site A.
    for (const mark of siteAMarks()) expect(all.text, mark).toContain(mark);
  });

  it('the 影响报告 workbook of a site-B manager holds only site B’s records', async () => {
    const url = `/api/system/crf/draft/impact/export?${draftQ()}`;
    const mine = await workbook(managerB, url);
    expect(mine.recordIds).toEqual(ids(B));
    expect(mine.text).toContain('乙院吸烟');
    expectNoSiteA(mine.text);
    const all = await workbook(managerAll, url);
    expect(all.recordIds).toEqual(ids([...A, ...B]).sort((a, b) => a - b));
    for (const mark of siteAMarks()) expect(all.text, mark).toContain(mark);
  });
});

describe('a published amendment × sites', () => {
  it('its drill-down and workbook keep to the caller’s sites', async () => {
    const published = await t.call(s.admin, 'POST', '/api/system/crf/draft/publish', {
      studyId: s.studyId,
      crfId: s.crfId,
      name: '中心范围修订',
    });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    amendmentId = published.body.data.amendmentId;
    const records = `/api/business/amendment/${amendmentId}/impact/records?studyId=${s.studyId}`;
    const exported = `/api/business/amendment/${amendmentId}/impact/export?studyId=${s.studyId}`;
    const mine = await drillDown(managerB, records);
    expect(mine.recordIds).toEqual(ids(B));
    expectNoSiteA(mine.text);
    const book = await workbook(managerB, exported);
    expect(book.recordIds).toEqual(ids(B));
    expectNoSiteA(book.text);
    const all = ids([...A, ...B]).sort((a, b) => a - b);
    expect((await drillDown(managerAll, records)).recordIds).toEqual(all);
    expect((await workbook(managerAll, exported)).recordIds).toEqual(all);
  });

  it('a site-B manager’s migration naming site A or site A’s records is refused, naming them; nothing of site A moves', async () => {
    const before = await recordsOf(A);
    const start = (scope: unknown) =>
      t.call(managerB, 'POST', '/api/business/amendment/migrate', { studyId: s.studyId, amendmentId, scope });
    const bySite = await start({ kind: 'sites', deptIds: [s.siteA] });
    expect(bySite.status).toBe(403);
    expect(bySite.body.msg).toBe(`所选中心不在您的数据范围内：${s.siteA}`);
    const byRecord = await start({ kind: 'records', crfDataRecordIds: ids(A) });
    expect(byRecord.status).toBe(400);
    expect(byRecord.body.msg).toBe(`以下记录不存在或不在您的数据范围内：${ids(A).join('、')}`);
    expect(await recordsOf(A)).toEqual(before);
    expect((await recordsOf(B)).map((r) => r.crfVersion)).toEqual([1, 1]);
  });

  it('a site-B manager’s migration of all moves site B’s records only; site A’s stay on the old version', async () => {
    const before = await recordsOf(A);
    const job = await migrateAs(managerB, { kind: 'all' });
    expect(job.result).toEqual({ moved: 2, changed: 2, skippedLocked: 0, failed: 0 });
    expect((await recordsOf(B)).map((r) => r.crfVersion)).toEqual([2, 2]);
    expect(await recordsOf(A)).toEqual(before);
    const trail = await t.db
      .select({ id: auditEvents.id })
      .from(auditEvents)
      .where(and(inArray(auditEvents.crfDataRecordId, ids(A)), eq(auditEvents.action, 'crf.migrate')));
    expect(trail).toEqual([]);
    // What is left to move is site A's: the all-sites manager sees it, site B's manager nothing.
    const records = `/api/business/amendment/${amendmentId}/impact/records?studyId=${s.studyId}`;
    expect((await drillDown(managerAll, records)).recordIds).toEqual(ids(A));
    expect((await drillDown(managerB, records)).recordIds).toEqual([]);
    const rest = await migrateAs(managerAll, { kind: 'all' });
    expect(rest.result).toEqual({ moved: 2, changed: 2, skippedLocked: 0, failed: 0 });
    expect((await recordsOf(A)).map((r) => r.crfVersion)).toEqual([2, 2]);
  });
});
