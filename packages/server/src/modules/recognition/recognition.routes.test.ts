import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  crfKey,
  judgedIndicator,
  matchRecognised,
  recognisedEntries,
  type CrfDefinition,
  type CrfNode,
  type RangeOverride,
} from '@ecrf/core';
import { jobs, recognitions, subjectRecords, subjects } from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { multipart } from '../../test/multipart.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { waitForJob } from '../export/export.service.js';
import { JobFailure, type JobInfo, type JobTools } from '../jobs/job-queue.js';
import { createOcrPool, ocrPool } from './ocr.pool.js';
import { pdfContentBomb, pdfImageBomb, peakMemory, pngBomb } from './recognition-bombs.js';
import { RECOGNITION_PATH } from './recognition.routes.js';
import { MSG_REFUSED, MSG_TOO_MANY, recognise, runRecognitionJob, TEMP_IDS_PER_WINDOW } from './recognition.service.js';
import { drawReport, reportFontsInstalled, type ReportRow } from './report-image.js';

/**
 * Recognition (docs/recognition.md) through the HTTP API against the real database: the tempId's rules on the
 * public path, the OCR job on a lab report drawn here with known values, the spec's answer shapes, and the
 * source image kept with the record (SDV).
 */
const REPORT: ReportRow[] = [
  { name: '白细胞计数', code: 'WBC', value: '6.52', unit: '10^9/L', range: '3.5-9.5', flag: '' },
  { name: '红细胞计数', code: 'RBC', value: '3.80', unit: '10^12/L', range: '4.3-5.8', flag: '↓' },
  { name: '血红蛋白', code: 'HGB', value: '98', unit: 'g/L', range: '130-175', flag: '↓' },
  { name: '*血小板计数', code: 'PLT', value: '356', unit: '10^9/L', range: '125-350', flag: '↑' },
  { name: '中性粒细胞百分比', code: 'NEUT%', value: '72.1', unit: '%', range: '40-75', flag: '' },
];

let t: TestApp;
let admin: string;
let studyId: number;
let labCrfId: number;
let subjectRecordId: number;
let reportKey: string;
let blankKey: string;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-recognition-test-'));

async function upload(token: string, fileName: string, data: Buffer, study = studyId) {
  const form = multipart({}, [{ fileName, data }]);
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/common/file/upload?studyId=${study}`,
    headers: { ...form.headers, authorization: `Bearer ${token}` },
    payload: form.payload,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.fileKey as string;
}

const temp = (token: string, body: object, study = studyId) =>
  t.call(token, 'POST', `/api/v1/imgrec/temp?studyId=${study}`, body);

async function tempId(token: string, body: object) {
  const res = await temp(token, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.tempId as string;
}

/** The public call as the spec's client makes it: no token (the path carries `ignore`). */
async function recognition(body: object, token?: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: RECOGNITION_PATH,
    payload: body,
    ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
  });
  return { status: res.statusCode, body: res.json() as { code: number; msg: string; data: any } };
}

const REFUSED = { code: 403, msg: '识别失败', data: null };
/** A test that runs the OCR: a loaded two-core machine reads a report in up to half a minute. */
const OCR_TIMEOUT = 180_000;

/** A one-page PDF with lines of text in Helvetica (a standard font: nothing embedded). */
function pdfReport(lines: string[]): Buffer {
  const content = `BT /F1 28 Tf 60 760 Td 40 TL\n${lines.map((l) => `(${l}) Tj T*`).join('\n')}\nET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** A blank white PNG: no text in it. */
function blankPng(): Buffer {
  return drawReport([], { title: '' });
}

beforeAll(async () => {
  t = await createTestApp({ config: { dataDir } });
  const demo = await openDemoStudy(t);
  ({ admin, studyId } = demo);
  labCrfId = demo.crfIds['实验室检查']!;
  const enrolled = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName: '张三',
    gender: 0,
    birth: '1970-03-02',
    diseaseCode: 'LSS',
    mobile: '13800000009',
  });
  expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
  subjectRecordId = enrolled.body.data.subjectRecordId;
  reportKey = await upload(admin, '血常规.png', drawReport(REPORT));
  blankKey = await upload(admin, 'blank.png', blankPng());
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('the tempId', () => {
  it('RECOG-06: is issued to a member for an uploaded image, single use, bound to user, study and file; only its hash is kept', async () => {
    const res = await temp(admin, { fileKey: blankKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ tempId: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), expiresIn: 600 });
    const [row] = await t.db.select().from(recognitions).where(eq(recognitions.fileKey, blankKey));
    expect(row).toMatchObject({ studyId, fileKey: blankKey, usedAt: null, state: 'issued' });
    expect(row!.tempIdHash).not.toContain(res.body.data.tempId);
    expect(JSON.stringify(row)).not.toContain(res.body.data.tempId);
  });

  it('is refused for a file of another study, a file the caller may not read, a non-image, and a non-member', async () => {
    expect((await temp(admin, { fileKey: '0'.repeat(32) })).status).toBe(403);
    // A member whose study role grants no form may not read another user's upload.
    const plain = await addStudyMember(t, admin, studyId, '13900000101', { permissions: [] });
    expect((await temp(plain, { fileKey: reportKey })).status).toBe(403);
    const textKey = await upload(admin, 'notes.txt', Buffer.from('白细胞 6.5\n'));
    expect(await temp(admin, { fileKey: textKey })).toMatchObject({ status: 400, body: { msg: '不支持的文件类型' } });
    const created = await t.call(admin, 'POST', '/api/business/study', { name: '另一项目', studyCode: 'OTHER-1' });
    const otherStudy = created.body.data?.id ?? created.body.data?.studyId;
    if (otherStudy) expect((await temp(plain, { fileKey: reportKey }, otherStudy)).status).toBe(403);
    expect((await temp(admin, { fileKey: 'not-a-key' })).status).toBe(400);
  });

  it(
    'RECOG-08: the call is POST /imgrec/api/ignore/business/image/recognition/common (decided: the path the spec names); RECOG-07: the public call is refused alike without a tempId, with an unknown one, or naming another file',
    async () => {
      expect(RECOGNITION_PATH).toBe('/imgrec/api/ignore/business/image/recognition/common');
      expect(await recognition({ url: blankKey, type: 2, index: 0 })).toEqual({ status: 403, body: REFUSED });
      expect(await recognition({ url: blankKey, type: 2, index: 0, tempId: 'x'.repeat(43) })).toEqual({
        status: 403,
        body: REFUSED,
      });
      const id = await tempId(admin, { fileKey: blankKey });
      expect(await recognition({ url: reportKey, type: 2, index: 0, tempId: id })).toEqual({
        status: 403,
        body: REFUSED,
      });
      expect(await recognition({ type: 2, index: 0, tempId: id })).toEqual({ status: 403, body: REFUSED });
      // Refusals do not spend it: the right file still goes through (nothing read in a blank image: 识别失败).
      expect(await recognition({ url: blankKey, type: 2, index: 0, tempId: id })).toMatchObject({
        status: 422,
        body: { code: 422, msg: '识别失败', data: null },
      });
    },
    OCR_TIMEOUT,
  );

  it(
    'RECOG-06: a tempId is spent once: a second call is refused',
    async () => {
      const id = await tempId(admin, { fileKey: blankKey });
      const url = `/api/v1/fileupload/downfile?fileKey=${blankKey}`;
      expect((await recognition({ url, type: 2, index: 0, tempId: id })).status).toBe(422);
      expect(await recognition({ url, type: 2, index: 0, tempId: id })).toEqual({ status: 403, body: REFUSED });
    },
    OCR_TIMEOUT,
  );

  it('an expired tempId is refused', async () => {
    const id = await tempId(admin, { fileKey: blankKey });
    t.clock.advance(601_000);
    expect(await recognition({ url: blankKey, type: 2, index: 0, tempId: id })).toEqual({ status: 403, body: REFUSED });
    // The access token aged with the clock: sign in again for the tests after this one.
    admin = (await t.login()).token;
  });

  it(
    "another user's token sent with a tempId is refused",
    async () => {
      const other = await addStudyMember(t, admin, studyId, '13900000102', {
        permissions: [crfKey(labCrfId, 'view'), crfKey(labCrfId, 'save')],
      });
      const id = await tempId(admin, { fileKey: blankKey });
      expect(await recognition({ url: blankKey, type: 2, index: 0, tempId: id }, other)).toEqual({
        status: 403,
        body: REFUSED,
      });
      // Its own user's token is fine.
      expect((await recognition({ url: blankKey, type: 2, index: 0, tempId: id }, admin)).status).toBe(422);
    },
    OCR_TIMEOUT,
  );

  it('a malformed type is a validation error', async () => {
    const res = await recognition({ url: blankKey, type: 'abc', index: 0, tempId: 'x'.repeat(43) });
    expect(res.status).toBe(400);
  });
});

describe.skipIf(!reportFontsInstalled())('recognising a lab report drawn with known values', () => {
  let recognitionId: number;
  /** The type-2 answer of the first recognition, judged again by the site's range below. */
  let answer: unknown;

  it(
    'RECOG-10: other types answer data.items with projectName and projectCode, read by a recognition job',
    async () => {
      const id = await tempId(admin, { fileKey: reportKey, crfId: labCrfId, subjectRecordId });
      const res = await recognition({ url: reportKey, type: 2, index: 0, tempId: id });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.msg).toBe('识别成功');
      const items = res.body.data.items as Array<Record<string, unknown>>;
      expect(items.map((i) => [i.projectName, i.projectCode, i.result, i.unit, i.referenceRange, i.flag])).toEqual(
        REPORT.map((r) => [r.name, r.code, r.value, r.unit, r.range, r.flag]),
      );
      expect(res.body.data.fileKey).toBe(reportKey);
      recognitionId = res.body.data.recognitionId;
      // The job ran on the queue; its record holds a count, the values stay in the study's recognition row.
      const [row] = await t.db.select().from(recognitions).where(eq(recognitions.id, recognitionId));
      expect(row).toMatchObject({ state: 'done', type: 2, index: 0, subjectRecordId, crfId: labCrfId });
      const [job] = await t.db.select().from(jobs).where(eq(jobs.jobId, row!.jobId!));
      expect(job).toMatchObject({ kind: 'recognition', state: 'done', ownerId: expect.any(Number), studyId });
      expect(job!.result).toMatchObject({ recognitionId, rows: REPORT.length });
      expect(JSON.stringify(job)).not.toContain('356');

      // RECOG-10, RECOG-01: the web's mapping strips the * and fills the demo lab form's items.
      const entries = recognisedEntries(2, res.body.data);
      expect(entries.map((e) => e.name)).toContain('血小板计数');
      const crf = await t.call(admin, 'GET', `/api/system/crf/${labCrfId}`);
      const definition = (crf.body.data.definition ?? crf.body.data) as CrfDefinition;
      const { filled } = matchRecognised(definition, entries);
      expect(Object.fromEntries(filled.map((f) => [f.itemName, f.value]))).toMatchObject({ hb: '98', wbc: '6.52' });
      answer = res.body.data;
    },
    OCR_TIMEOUT,
  );

  it('参考范围 (issue 37): a recognised value is judged by the patient’s site range, the one the save would use', async () => {
    expect(answer).toBeDefined();
    const [{ siteId } = { siteId: null }] = await t.db
      .select({ siteId: subjects.deptId })
      .from(subjectRecords)
      .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
      .where(eq(subjectRecords.id, subjectRecordId));
    expect(siteId).not.toBeNull();
    const applicable = () =>
      t.call(
        admin,
        'GET',
        `/api/business/lab-ranges/applicable?studyId=${studyId}&subjectRecordId=${subjectRecordId}&crfId=${labCrfId}`,
      );
    // No site range yet: the items keep their own (white cells 3.5–9.5), and 6.52 is no ↑.
    expect((await applicable()).body.data).toEqual({});
    const created = await t.call(admin, 'POST', '/api/business/lab-ranges', {
      studyId,
      siteId,
      analyte: 'WBC',
      unit: '10^9/L',
      sex: null,
      ageMin: null,
      ageMax: null,
      lower: 3.5,
      upper: 6,
      effectiveFrom: '2020-01-01',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const ranges = (await applicable()).body.data as Record<string, RangeOverride>;
    expect(ranges).toEqual({ wbc: { lower: 3.5, upper: 6, unit: '10^9/L' } });

    const crf = await t.call(admin, 'GET', `/api/system/crf/${labCrfId}`);
    const definition = (crf.body.data.definition ?? crf.body.data) as CrfDefinition;
    const wbcItem = definition.children.flatMap((n) => [n, ...n.children]).find((n) => n.name === 'wbc') as CrfNode;
    const entries = recognisedEntries(2, answer);
    const bySite = matchRecognised(definition, entries, ranges).filled.find((f) => f.itemName === 'wbc')!;
    expect(bySite).toMatchObject({ value: '6.52', verdict: 'fill' });
    // The flag the filled value shows: ↑ by the site's upper bound 6, none by the item's own 9.5.
    expect(judgedIndicator(bySite.value, wbcItem.option, null, undefined, ranges.wbc)).toBe('high');
    expect(judgedIndicator(bySite.value, wbcItem.option, null, undefined, undefined)).toBeNull();
  });

  it(
    'RECOG-09: identify type 1 answers data.data.ret',
    async () => {
      const id = await tempId(admin, { fileKey: reportKey });
      const res = await recognition({ url: reportKey, type: 1, index: 2, tempId: id });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.items).toBeUndefined();
      expect(res.body.data.data.ret.map((r: { word_name: string; word: string }) => [r.word_name, r.word])).toEqual(
        REPORT.map((r) => [r.name, r.value]),
      );
      expect(recognisedEntries(1, res.body.data).map((e) => e.value)).toEqual(REPORT.map((r) => r.value));
    },
    OCR_TIMEOUT,
  );

  it('keeps the source image linked to the record for SDV: listed for viewers of the form, openable by them', async () => {
    const list = await t.call(
      admin,
      'GET',
      `/api/v1/imgrec/sources?studyId=${studyId}&subjectRecordId=${subjectRecordId}`,
    );
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      expect.objectContaining({ recognitionId, fileKey: reportKey, fileName: '血常规.png', crfId: labCrfId }),
    ]);
    const monitor = await addStudyMember(t, admin, studyId, '13900000103', {
      permissions: [crfKey(labCrfId, 'view')],
    });
    const seen = await t.call(
      monitor,
      'GET',
      `/api/v1/imgrec/sources?studyId=${studyId}&subjectRecordId=${subjectRecordId}`,
    );
    expect(seen.body.data.map((s: { fileKey: string }) => s.fileKey)).toEqual([reportKey]);
    const opened = await t.app.inject({
      method: 'GET',
      url: `/api/v1/fileupload/downfile?fileKey=${reportKey}`,
      headers: { authorization: `Bearer ${monitor}` },
    });
    expect(opened.statusCode).toBe(200);
    const blind = await addStudyMember(t, admin, studyId, '13900000104', { permissions: [] });
    const none = await t.call(
      blind,
      'GET',
      `/api/v1/imgrec/sources?studyId=${studyId}&subjectRecordId=${subjectRecordId}`,
    );
    expect(none.body.data).toEqual([]);
    const closed = await t.app.inject({
      method: 'GET',
      url: `/api/v1/fileupload/downfile?fileKey=${reportKey}`,
      headers: { authorization: `Bearer ${blind}` },
    });
    expect(closed.statusCode).toBe(403);

    // Linking to the record its first save created (the recognition's own user only).
    const saved = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId,
      crfId: labCrfId,
      version: 0,
      values: { hb: 98, wbc: 6.52 },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const crfDataRecordId = saved.body.data.crfDataRecordId ?? saved.body.data.id;
    expect(
      (await t.call(monitor, 'PUT', `/api/v1/imgrec/${recognitionId}/record?studyId=${studyId}`, { crfDataRecordId }))
        .status,
    ).toBe(404);
    const linked = await t.call(admin, 'PUT', `/api/v1/imgrec/${recognitionId}/record?studyId=${studyId}`, {
      crfDataRecordId,
    });
    expect(linked.status, JSON.stringify(linked.body)).toBe(200);
    const [row] = await t.db.select().from(recognitions).where(eq(recognitions.id, recognitionId));
    expect(row!.crfDataRecordId).toBe(crfDataRecordId);
  });

  it(
    'answers 202 with the job when the wait bound passes first; the owner reads the result afterwards',
    async () => {
      const id = await tempId(admin, { fileKey: reportKey });
      const outcome = await recognise(t.ctx, { url: reportKey, type: 2, index: 0, tempId: id }, null, 0);
      expect(outcome.kind).toBe('pending');
      if (outcome.kind !== 'pending') return;
      const ended = await waitForJob(t.ctx, outcome.jobId, 120_000);
      expect(ended?.state).toBe('done');
      const res = await t.call(admin, 'GET', `/api/v1/imgrec/${outcome.recognitionId}?studyId=${studyId}`);
      expect(res.status).toBe(200);
      expect(res.body.data.items).toHaveLength(REPORT.length);
    },
    OCR_TIMEOUT,
  );
});

describe('recognising a PDF report', () => {
  it(
    'RECOG-03: reads a PDF report (a one-page PDF here; every page: pdf-pages.test.ts)',
    async () => {
      const pdfKey = await upload(
        admin,
        'report.pdf',
        pdfReport(['LAB REPORT', 'WBC  6.52  10^9/L  3.5-9.5', 'HGB  98  g/L  130-175', 'PLT  356  10^9/L  125-350']),
      );
      const id = await tempId(admin, { fileKey: pdfKey });
      const res = await recognition({ url: pdfKey, type: 2, index: 0, tempId: id });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(
        res.body.data.items.map((i: Record<string, string>) => [
          i.projectCode,
          i.result,
          i.unit,
          i.referenceRange,
          i.flag,
        ]),
      ).toEqual([
        ['WBC', '6.52', '10^9/L', '3.5-9.5', ''],
        ['HGB', '98', 'g/L', '130-175', '↓'],
        ['PLT', '356', '10^9/L', '125-350', '↑'],
      ]);
    },
    OCR_TIMEOUT,
  );
});

describe('bounds on what one member can make the server do', () => {
  it(
    "a 1.5 KB PDF whose image claims 20 000 × 20 000 pixels and a 110 KB PNG claiming 30 000 × 30 000 fail their jobs at once with 图片尺寸过大，请缩小后重试, the server's memory flat",
    async () => {
      for (const [fileName, bomb] of [
        ['炸弹.pdf', await pdfImageBomb(20_000)],
        ['炸弹.png', await pngBomb(30_000)],
      ] as const) {
        const key = await upload(admin, fileName, bomb);
        const id = await tempId(admin, { fileKey: key });
        const started = performance.now();
        const measured = await peakMemory(
          () => ocrPool().processId(),
          () => recognition({ url: key, type: 2, index: 0, tempId: id }),
        );
        const seconds = (performance.now() - started) / 1000;
        console.log(
          `${fileName} (${bomb.length} B): answered in ${seconds.toFixed(1)} s; server ${measured.server.before} → ${measured.server.peak} MB, OCR process peak ${measured.ocr.peak} MB`,
        );
        expect(measured.outcome).toEqual({
          status: 'fulfilled',
          value: { status: 422, body: { code: 422, msg: '图片尺寸过大，请缩小后重试', data: null } },
        });
        // Before the bounds the PDF took the server to 4.5 GB for 24 s; now nothing of it is decoded, and the
        // OCR runs in its own process anyway.
        expect(measured.server.peak - measured.server.before).toBeLessThan(150);
        expect(seconds).toBeLessThan(30);
        const [row] = await t.db.select().from(recognitions).where(eq(recognitions.fileKey, key));
        expect(row).toMatchObject({ state: 'failed' });
        const [job] = await t.db.select().from(jobs).where(eq(jobs.jobId, row!.jobId!));
        expect(job).toMatchObject({ state: 'failed', error: MSG_REFUSED['too-large'] });
      }
    },
    OCR_TIMEOUT,
  );

  it(
    'a runaway job (3.7 KB of PDF inflating to 2 GB) is stopped by the time bound: its OCR process killed, the job failed with 识别超时，请缩小图片后重试',
    async () => {
      const key = await upload(admin, '内容炸弹.pdf', await pdfContentBomb());
      await tempId(admin, { fileKey: key });
      const [row] = await t.db.select().from(recognitions).where(eq(recognitions.fileKey, key));
      const pool = createOcrPool({ timeoutMs: 2000 });
      const job = { payload: { recognitionId: row!.id, studyId } } as JobInfo<{
        recognitionId: number;
        studyId: number;
      }>;
      const tools = { progress: async () => undefined, signal: new AbortController().signal } as unknown as JobTools;
      try {
        const started = performance.now();
        const failed = await runRecognitionJob(t.ctx, job, tools, pool).catch((err: unknown) => err);
        expect(failed).toBeInstanceOf(JobFailure);
        expect((failed as JobFailure).message).toBe('识别超时，请缩小图片后重试');
        expect(performance.now() - started).toBeLessThan(15_000);
        expect(pool.processId()).toBeUndefined();
        const [after] = await t.db.select().from(recognitions).where(eq(recognitions.id, row!.id));
        expect(after).toMatchObject({ state: 'failed', rows: null });
      } finally {
        await pool.close();
      }
    },
    OCR_TIMEOUT,
  );

  it('a member is issued 30 tempIds in 10 minutes: the 31st is 429 识别请求过于频繁，请稍后再试, other users go on, the next window issues again', async () => {
    expect(TEMP_IDS_PER_WINDOW).toBe(30);
    const member = await addStudyMember(t, admin, studyId, '13900000105', {
      permissions: [crfKey(labCrfId, 'view'), crfKey(labCrfId, 'save')],
    });
    const key = await upload(member, 'mine.png', blankPng());
    const userId = (await t.call(member, 'GET', '/api/sys/login/getInfo')).body.data.user.userId as number;
    // Start from the beginning of a window, so all 31 calls fall in one.
    const now = t.clock().getTime();
    t.clock.advance(600_000 - (now % 600_000));
    for (let i = 0; i < TEMP_IDS_PER_WINDOW; i++) {
      expect((await temp(member, { fileKey: key })).status).toBe(200);
    }
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/imgrec/temp?studyId=${studyId}`,
      headers: { authorization: `Bearer ${member}` },
      payload: { fileKey: key },
    });
    expect(res.statusCode).toBe(429);
    expect(res.json()).toEqual({ code: 429, msg: MSG_TOO_MANY, data: { retryAfter: 600 } });
    expect(MSG_TOO_MANY).toBe('识别请求过于频繁，请稍后再试');
    expect(res.headers['retry-after']).toBe('600');
    // Nothing was issued for the refused request.
    const issued = await t.db.select().from(recognitions).where(eq(recognitions.userId, userId));
    expect(issued).toHaveLength(TEMP_IDS_PER_WINDOW);
    // The count is the member's own.
    expect((await temp(admin, { fileKey: blankKey })).status).toBe(200);
    t.clock.advance(599_000);
    expect(await temp(member, { fileKey: key })).toMatchObject({ status: 429, body: { data: { retryAfter: 1 } } });
    t.clock.advance(1_000);
    expect((await temp(member, { fileKey: key })).status).toBe(200);
  });
});
