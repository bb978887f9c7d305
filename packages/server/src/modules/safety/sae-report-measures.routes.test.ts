import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codedItems, saeReports } from '../../db/schema/index.js';
import { multipart } from '../../test/multipart.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { openTwoSiteStudy, type TwoSiteStudy } from '../../test/two-sites.js';

/**
 * The SAE report's 身高(cm)/体重(kg) and coded term (issue 37): height and weight from the study's own items (the demo
 * study's 人口学资料 height/weight), blank when the patient has none; the AE term's MedDRA PT and SOC beside the
 * verbatim term in the NMPA form and the CIOMS form once its code is approved, never before.
 */
const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../test/fixtures/coding/meddra');

let t: TestApp;
let s: TwoSiteStudy;
let aeCrfId: number;
const reportOf: Record<'A' | 'B', number> = { A: 0, B: 0 };

const get = (token: string, format: string, reportId: number) =>
  t.app.inject({
    method: 'GET',
    url: `/api/business/safety/report/export?studyId=${s.studyId}&reportId=${reportId}&format=${format}`,
    headers: { authorization: `Bearer ${token}` },
  });

/** The texts of a Word document's table cells, in order (the lines of a cell joined by a line break). */
async function cellTexts(data: Buffer): Promise<string[]> {
  const PizZip = (await import('pizzip')).default;
  const xml = new PizZip(data).file('word/document.xml')!.asText();
  return [...xml.matchAll(/<w:tc>([\s\S]*?)<\/w:tc>/g)].map((cell) =>
    [...cell[1]!.matchAll(/<w:br\/>|<w:t[^>]*>([^<]*)<\/w:t>/g)].map((m) => m[1] ?? '\n').join(''),
  );
}

/** The cell right after a label cell. */
const after = (cells: string[], label: string) => cells[cells.indexOf(label) + 1];

async function saveForm(subjectRecordId: number, crfId: number, values: Record<string, unknown>) {
  const res = await t.call(s.admin, 'PUT', '/api/v3/business/crf', { subjectRecordId, crfId, version: 0, values });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await t.ctx.events.drain();
  return res.body.data.crfDataRecordId as number;
}

const SAE = {
  ae_start: '2026-11-20',
  ae_grade: '3',
  ae_causality: 'possible',
  ae_serious: '1',
  ae_criteria: ['hosp'],
  ae_aware: '2026-11-22 14:00',
};

beforeAll(async () => {
  t = await createTestApp();
  s = await openTwoSiteStudy(t);
  const files = readdirSync(FIXTURES).map((f) => ({
    field: 'files',
    fileName: f,
    data: readFileSync(path.join(FIXTURES, f), 'utf8'),
  }));
  const body = multipart({}, files);
  const loaded = await t.app.inject({
    method: 'POST',
    url: `/api/business/coding/dictionary?studyId=${s.studyId}&kind=meddra&version=1.0&language=zh`,
    headers: { ...body.headers, authorization: `Bearer ${s.admin}` },
    payload: body.payload,
  });
  expect(loaded.statusCode, loaded.body).toBe(200);
  const on = await t.call(s.admin, 'PUT', '/api/business/safety/module', { studyId: s.studyId, enabled: true });
  aeCrfId = on.body.data.aeCrfId;
  const coded = await t.call(s.admin, 'PUT', '/api/business/coding/items', {
    studyId: s.studyId,
    items: [{ crfId: aeCrfId, itemName: 'ae_term', kind: 'meddra' }],
  });
  expect(coded.status, JSON.stringify(coded.body)).toBe(200);
  const demographics = s.crfIds['人口学资料']!;
  await saveForm(s.patientA.subjectRecordId, demographics, { height: '172', weight: '68.5' });
  // Patient B: a weight but no height; the height stays blank rather than guessed.
  await saveForm(s.patientB.subjectRecordId, demographics, { weight: '60' });
  const recordA = await saveForm(s.patientA.subjectRecordId, aeCrfId, { ae_term: '头痛', ...SAE });
  const recordB = await saveForm(s.patientB.subjectRecordId, aeCrfId, { ae_term: '恶心', ...SAE });
  for (const [key, record] of [
    ['A', recordA],
    ['B', recordB],
  ] as const) {
    const [report] = await t.db.select().from(saeReports).where(eq(saeReports.crfDataRecordId, record));
    reportOf[key] = report!.id;
  }
});
afterAll(() => t.close());

describe('SAE report: height, weight and the coded term (issue 37)', () => {
  it('safety export: 身高(cm) and 体重(kg) from the patient’s 人口学资料; blank where the patient has none', async () => {
    const a = await cellTexts((await get(s.admin, 'docx', reportOf.A)).rawPayload);
    expect(after(a, '身高（cm）')).toBe('172');
    expect(after(a, '体重（kg）')).toBe('68.5');
    const b = await cellTexts((await get(s.admin, 'docx', reportOf.B)).rawPayload);
    expect(after(b, '身高（cm）')).toBe('');
    expect(after(b, '体重（kg）')).toBe('60');
  });

  it('safety export: the MedDRA PT and SOC print beside the term only once its code is approved, in NMPA and CIOMS', async () => {
    const [item] = await t.db
      .select()
      .from(codedItems)
      .where(
        and(eq(codedItems.studyId, s.studyId), eq(codedItems.itemName, 'ae_term'), eq(codedItems.verbatim, '头痛')),
      );
    // Auto-coded on save (an exact match), not yet approved: the verbatim term alone.
    expect(item).toMatchObject({ state: 'auto', coding: { ptCode: '90300001' } });
    const before = await cellTexts((await get(s.admin, 'docx', reportOf.A)).rawPayload);
    expect(after(before, 'SAE的医学术语（诊断）')).toBe('头痛');

    const approved = await t.call(s.monitor.token, 'POST', '/api/business/coding/approve', {
      studyId: s.studyId,
      codedItemIds: [item!.id],
    });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    const nmpa = await cellTexts((await get(s.admin, 'docx', reportOf.A)).rawPayload);
    expect(after(nmpa, 'SAE的医学术语（诊断）')).toBe(
      '头痛\nMedDRA 1.0 PT：头痛（90300001）；SOC：虚构神经系统疾病（90000001）',
    );
    const cioms = await cellTexts((await get(s.admin, 'cioms', reportOf.A)).rawPayload);
    const description = after(cioms, '7 + 13. Describe reaction(s) (including relevant tests/lab data)')!;
    expect(description.split('\n').slice(0, 4)).toEqual([
      '头痛',
      'MedDRA 1.0 PT: 头痛 (90300001); SOC: 虚构神经系统疾病 (90000001)',
      'Height: 172 cm',
      'Weight: 68.5 kg',
    ]);
    // Patient B's 恶心 is auto-coded but not approved: no coded terms.
    const b = await cellTexts((await get(s.admin, 'docx', reportOf.B)).rawPayload);
    expect(after(b, 'SAE的医学术语（诊断）')).toBe('恶心');
  });
});
