import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { exportFile } from '../../test/export-fixture.js';
import { multipart } from '../../test/multipart.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/** 医学编码 (issue 37) in the export: `<item>_llt`, `_pt`, `_soc` beside a MedDRA-coded item, on the made-up dictionary. */
const MEDDRA = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../test/fixtures/coding/meddra');

let t: TestApp;
let admin: string;
let studyId: number;
let coded: string;
let uncoded: string;

beforeAll(async () => {
  t = await createTestApp();
  const demo = await openDemoStudy(t);
  ({ admin, studyId } = demo);
  const body = multipart(
    {},
    readdirSync(MEDDRA).map((f) => ({ field: 'files', fileName: f, data: readFileSync(path.join(MEDDRA, f)) })),
  );
  const loaded = await t.app.inject({
    method: 'POST',
    url: `/api/business/coding/dictionary?studyId=${studyId}&kind=meddra&version=1.0&language=zh`,
    headers: { ...body.headers, authorization: `Bearer ${admin}` },
    payload: body.payload,
  });
  expect(loaded.statusCode, loaded.body).toBe(200);
  const set = await t.call(admin, 'PUT', '/api/business/coding/items', {
    studyId,
    items: [{ crfId: demo.crfIds['人口学资料'], itemName: 'history_note', kind: 'meddra' }],
  });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  const save = async (name: string, note: string) => {
    const patient = await enrolDemoPatient(t, admin, studyId, { subjectName: name });
    const res = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId: patient.subjectRecordId,
      crfId: demo.crfIds['人口学资料'],
      version: 0,
      values: { history_note: note },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return patient.identificationCode;
  };
  coded = await save('编码甲', '头疼');
  uncoded = await save('编码乙', '说不清的不适');
  await t.ctx.events.drain();
});
afterAll(() => t.close());

describe('coded terms in the export', () => {
  it('CSV wide: history_note_llt, _pt, _soc right after the verbatim, the terms for a coded record, blank for an uncoded one', async () => {
    const wide = Papa.parse<Record<string, string>>(
      (await exportFile(t, { admin, studyId }, { format: 'csvWide' })).toString('utf8').replace(/^\uFEFF/, ''),
      { header: true, skipEmptyLines: true },
    );
    const fields = wide.meta.fields!;
    const at = fields.indexOf('history_note');
    expect(fields.slice(at, at + 4)).toEqual([
      'history_note',
      'history_note_llt',
      'history_note_pt',
      'history_note_soc',
    ]);
    const row = (code: string) => wide.data.find((r) => r.subject_code === code && r.history_note)!;
    expect(row(coded)).toMatchObject({
      history_note: '头疼',
      history_note_llt: '头疼',
      history_note_pt: '头痛',
      history_note_soc: '虚构神经系统疾病',
    });
    expect(row(uncoded)).toMatchObject({ history_note_llt: '', history_note_pt: '', history_note_soc: '' });
  });
});
