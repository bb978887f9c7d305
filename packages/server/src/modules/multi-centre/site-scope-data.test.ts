import type { AddressInfo } from 'node:net';
import { count, eq, inArray } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { io as connectClient, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_FORMATS, STUDY_JOIN, type ExportFormat, type StudyJoinAnswer } from '@ecrf/core';
import { crfDataRecords, subjectRecords } from '../../db/schema/index.js';
import { multipart } from '../../test/multipart.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { openTwoSiteStudy, type TwoSiteStudy } from '../../test/two-sites.js';
import { EXPORT_JOB_KIND, waitForJob, type ExportJobPayload } from '../export/export.service.js';
import { pushQueryEvent, pushRecordSaved } from '../realtime/realtime.subscribers.js';

/**
 * Site scope (分中心) of the data modules: what a member without 查看全部中心数据 retrieves, exports, imports, reads
 * through the REDCap API, sees on the study home and in the top bar's search, and is pushed. The patients' names
 * ('甲院患者' at site A, '乙院患者' at site B) and codes are the markers looked for in every answer and file.
 */
let t: TestApp;
let s: TwoSiteStudy;
let vitals: number;
const subjectIdOf: Record<'A' | 'B', number> = { A: 0, B: 0 };

const A_NAME = '甲院患者';
const B_NAME = '乙院患者';

/** Patient's 生命体征 heart rate as stored (numbers are stored as text). */
async function storedHr(subjectRecordId: number) {
  const rows = await t.db.select().from(crfDataRecords).where(eq(crfDataRecords.subjectRecordId, subjectRecordId));
  return rows.find((r) => r.crfId === vitals)?.values.hr;
}

async function save(token: string, subjectRecordId: number, crfId: number, values: object) {
  const res = await t.call(token, 'PUT', '/api/v3/business/crf', { subjectRecordId, crfId, version: 0, values });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

beforeAll(async () => {
  t = await createTestApp({ config: { dataDir: `/tmp/edc-site-scope-test-${process.pid}` } });
  s = await openTwoSiteStudy(t);
  vitals = s.crfIds['生命体征']!;
  await save(s.admin, s.patientA.subjectRecordId, vitals, { sbp: 150, dbp: 90, hr: 80 });
  await save(s.admin, s.patientB.subjectRecordId, vitals, { sbp: 120, dbp: 70, hr: 60 });
  const rows = await t.db
    .select({ id: subjectRecords.id, subjectId: subjectRecords.subjectId })
    .from(subjectRecords)
    .where(inArray(subjectRecords.id, [s.patientA.subjectRecordId, s.patientB.subjectRecordId]));
  subjectIdOf.A = rows.find((r) => r.id === s.patientA.subjectRecordId)!.subjectId;
  subjectIdOf.B = rows.find((r) => r.id === s.patientB.subjectRecordId)!.subjectId;
  await t.ctx.events.drain();
});
afterAll(() => t.close());

/** Which of the two patients a text holds, by their codes (and names, where identifiers are in it). */
function holds(text: string) {
  return {
    A: text.includes(s.patientA.identificationCode) || text.includes(A_NAME),
    B: text.includes(s.patientB.identificationCode) || text.includes(B_NAME),
  };
}

describe('retrieval (数据检索)', () => {
  const search = (token: string) =>
    t.call(token, 'POST', '/api/business/search/v2', {
      studyId: s.studyId,
      conditions: { join: 'and', groups: [] },
      columns: [{ kind: 'patient', field: 'subjectName' }],
      pageNum: 1,
      pageSize: 100,
    });

  it('SRCH-03: a scoped nurse retrieves and counts her own site’s patients only; the monitor both', async () => {
    const b = await search(s.nurseB.token);
    expect(b.status, JSON.stringify(b.body)).toBe(200);
    expect(holds(JSON.stringify(b.body.data))).toEqual({ A: false, B: true });
    expect(b.body.data.total).toBe(1);
    const a = await search(s.nurseA.token);
    expect(holds(JSON.stringify(a.body.data))).toEqual({ A: true, B: false });
    const monitor = await search(s.monitor.token);
    expect(holds(JSON.stringify(monitor.body.data))).toEqual({ A: true, B: true });
    expect(monitor.body.data.total).toBe(2);
  });
});

describe('export', () => {
  /** The file's text: a zip's (xlsx, SPSS and Stata bundles) entries read as text, one after another. */
  async function textOf(file: Buffer): Promise<string> {
    if (file.subarray(0, 2).toString('latin1') !== 'PK') return file.toString('utf8');
    const zip = await JSZip.loadAsync(file);
    const texts = await Promise.all(Object.values(zip.files).map((f) => (f.dir ? '' : f.async('string'))));
    return texts.join('\n');
  }

  async function download(token: string, jobId: string) {
    const job = await waitForJob(t.ctx, jobId, 60_000);
    expect(job?.state, JSON.stringify(job)).toBe('done');
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/system/jobs/${jobId}/result`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(200);
    return textOf(res.rawPayload);
  }

  async function exportText(token: string, format: ExportFormat, api: 'v2' | 'v3' = 'v3', extra: object = {}) {
    const res = await t.call(token, 'POST', `/api/${api}/business/search/export`, {
      studyId: s.studyId,
      format,
      identifiers: true,
      ...(api === 'v2' ? { conditions: { join: 'and', groups: [] } } : {}),
      ...extra,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return download(token, res.body.data.jobId as string);
  }

  it('SRCH-05: every format of the whole-study export (v3) holds the caller’s sites’ patients only', async () => {
    for (const { code: format } of EXPORT_FORMATS) {
      expect(holds(await exportText(s.nurseB.token, format)), format).toEqual({ A: false, B: true });
    }
    expect(holds(await exportText(s.nurseA.token, 'csvWide'))).toEqual({ A: true, B: false });
    expect(holds(await exportText(s.monitor.token, 'csvWide'))).toEqual({ A: true, B: true });
    expect(holds(await exportText(s.monitor.token, 'odm'))).toEqual({ A: true, B: true });
  });

  it('SRCH-05: a search’s export (v2) holds the scoped search’s patients; naming another site’s patient is a 404', async () => {
    expect(holds(await exportText(s.nurseB.token, 'csvLong', 'v2'))).toEqual({ A: false, B: true });
    expect(holds(await exportText(s.monitor.token, 'csvLong', 'v2'))).toEqual({ A: true, B: true });
    const named = await t.call(s.nurseB.token, 'POST', '/api/v2/business/search/export', {
      studyId: s.studyId,
      format: 'csvWide',
      subjectRecordIds: [s.patientA.subjectRecordId],
    });
    expect(named.status).toBe(404);
    expect(named.body.msg).toBe('患者不存在');
  });

  it('an export job reads its patients under its owner’s sites when it runs, whatever ids it carries', async () => {
    const payload: ExportJobPayload = {
      studyId: s.studyId,
      api: 'v2',
      options: {
        format: 'csvWide',
        crfIds: [],
        stageIds: [],
        states: ['saved', 'submitted'],
        labels: false,
        identifiers: true,
        dateShiftDays: null,
      },
      scope: { kind: 'list', subjectRecordIds: [s.patientA.subjectRecordId, s.patientB.subjectRecordId] },
      chosenBy: 'list',
      userName: '13700000002',
      systemPermissions: [],
    };
    const job = await t.ctx.jobs.enqueue(EXPORT_JOB_KIND, payload, { ownerId: s.nurseB.userId, studyId: s.studyId });
    expect(holds(await download(s.nurseB.token, job.jobId))).toEqual({ A: false, B: true });
  });
});

describe('data import', () => {
  async function workbook(rows: Array<Array<string | number>>): Promise<Buffer> {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('生命体征');
    for (const row of [['编号', 'hr'], ...rows]) ws.addRow(row);
    return Buffer.from(await wb.xlsx.writeBuffer());
  }
  async function importFile(file: Buffer, query: Record<string, string>, token: string) {
    const body = multipart({}, [{ fileName: '导入.xlsx', data: file }]);
    const qs = new URLSearchParams({ studyId: String(s.studyId), submitType: '0', ...query }).toString();
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/business/import/multi_crf_sheet/multi_thread?${qs}`,
      headers: { ...body.headers, authorization: `Bearer ${token}` },
      payload: body.payload,
    });
    return { status: res.statusCode, body: res.json() };
  }
  const hrOf = (subjectRecordId: number) => storedHr(subjectRecordId);
  const recordCount = async () =>
    (await t.db.select({ n: count() }).from(crfDataRecords).where(eq(crfDataRecords.studyId, s.studyId)))[0]!.n;

  it('SRCH-06: a row naming another site’s patient is the row’s error 患者不在您的中心范围内; a whole-file import writes nothing', async () => {
    const file = await workbook([
      [s.patientA.identificationCode, 99],
      [s.patientB.identificationCode, 77],
    ]);
    const preview = await importFile(file, { dryRun: 'true' }, s.nurseB.token);
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    const rowA = preview.body.data.rows.find(
      (r: { identificationCode: string }) => r.identificationCode === s.patientA.identificationCode,
    );
    expect(rowA.errors[0]).toMatchObject({ column: '编号', message: '患者不在您的中心范围内' });

    const before = await recordCount();
    const whole = await importFile(file, { mode: 'file' }, s.nurseB.token);
    expect(whole.status, JSON.stringify(whole.body)).toBe(200);
    expect(whole.body.data.result).toMatchObject({ importedPatients: 0, values: 0 });
    expect(whole.body.data.result.errors.map((e: { message: string }) => e.message)).toContain(
      '患者不在您的中心范围内',
    );
    expect(await recordCount()).toBe(before);
    expect(await hrOf(s.patientA.subjectRecordId)).toBe('80');
    expect(await hrOf(s.patientB.subjectRecordId)).toBe('60');

    // By patient: her own patient is imported, the other site's refused and untouched.
    const byPatient = await importFile(file, { mode: 'patient' }, s.nurseB.token);
    expect(byPatient.body.data.result).toMatchObject({ importedPatients: 1, skippedPatients: 1 });
    expect(await hrOf(s.patientA.subjectRecordId)).toBe('80');
    expect(await hrOf(s.patientB.subjectRecordId)).toBe('77');
    // Her colleague at site A imports her own patient.
    const own = await importFile(await workbook([[s.patientA.identificationCode, 81]]), {}, s.nurseA.token);
    expect(own.body.data.result).toMatchObject({ importedPatients: 1 });
    expect(await hrOf(s.patientA.subjectRecordId)).toBe('81');
  });

  it('SRCH-07: an image URL for another site’s patient is refused before anything is fetched', async () => {
    const res = await t.call(s.nurseB.token, 'POST', '/api/business/import/image_urls', {
      studyId: s.studyId,
      items: [
        {
          identificationCode: s.patientA.identificationCode,
          crf: '影像学检查',
          item: 'xray',
          url: 'http://x.test/a.png',
        },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe('患者不在您的中心范围内');
    const byId = await t.call(s.nurseB.token, 'POST', '/api/business/import/image_urls', {
      studyId: s.studyId,
      items: [
        { subjectRecordId: s.patientA.subjectRecordId, crf: '影像学检查', item: 'xray', url: 'http://x.test/a.png' },
      ],
    });
    expect(byId.body.data.errors[0].message).toBe('患者不在您的中心范围内');
  });
});

describe('REDCap API', () => {
  async function redcap(params: Record<string, string>) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/redcap',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(params).toString(),
    });
    return { status: res.statusCode, text: res.body };
  }
  const tokenOf = async (bearer: string) => {
    const res = await t.call(bearer, 'POST', '/api/system/user/profile/apiToken', { studyId: s.studyId });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.token as string;
  };
  let tokenB = '';
  let tokenA = '';
  beforeAll(async () => {
    tokenB = await tokenOf(s.nurseB.token);
    tokenA = await tokenOf(s.nurseA.token);
  });

  it('a scoped nurse’s token exports her own site’s records only, even when another site’s record is named', async () => {
    const all = await redcap({ token: tokenB, content: 'record', format: 'json' });
    expect(all.status, all.text).toBe(200);
    expect(holds(all.text)).toEqual({ A: false, B: true });
    const named = await redcap({
      token: tokenB,
      content: 'record',
      format: 'csv',
      records: s.patientA.identificationCode,
    });
    expect(named.status, named.text).toBe(200);
    expect(holds(named.text)).toEqual({ A: false, B: false });
    const own = await redcap({ token: tokenA, content: 'record', format: 'json' });
    expect(holds(own.text)).toEqual({ A: true, B: false });
  });

  it('her token’s import naming another site’s record is refused by name and writes nothing', async () => {
    const data = JSON.stringify([
      { record_id: s.patientA.identificationCode, hr: '55' },
      { record_id: s.patientB.identificationCode, hr: '56' },
    ]);
    const [hrA, hrB] = [await storedHr(s.patientA.subjectRecordId), await storedHr(s.patientB.subjectRecordId)];
    const res = await redcap({ token: tokenB, content: 'record', action: 'import', format: 'json', data });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text).error).toBe(`以下记录（患者编号）不在您的中心范围内：${s.patientA.identificationCode}`);
    expect(await storedHr(s.patientA.subjectRecordId)).toBe(hrA);
    expect(await storedHr(s.patientB.subjectRecordId)).toBe(hrB);
    // Her own record alone is imported.
    const own = JSON.stringify([{ record_id: s.patientB.identificationCode, hr: '56' }]);
    const ok = await redcap({ token: tokenB, content: 'record', action: 'import', format: 'json', data: own });
    expect(ok.status, ok.text).toBe(200);
    expect(await storedHr(s.patientB.subjectRecordId)).toBe('56');
  });

  it('her token can neither read nor write a file of another site’s record', async () => {
    const address = {
      content: 'file',
      record: s.patientA.identificationCode,
      field: 'lab_report',
      returnFormat: 'json',
    };
    const read = await redcap({ token: tokenB, ...address, action: 'export' });
    expect(read.status).toBe(400);
    expect(JSON.parse(read.text).error).toBe(`记录 ${s.patientA.identificationCode} 不存在`);
    const removed = await redcap({ token: tokenB, ...address, action: 'delete' });
    expect(removed.status).toBe(403);
    expect(JSON.parse(removed.text).error).toBe(`记录 ${s.patientA.identificationCode} 不在您的中心范围内`);
  });
});

describe('study home and the top bar’s search', () => {
  const home = async (token: string) => {
    const res = await t.call(token, 'GET', `/api/business/index?studyId=${s.studyId}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  };
  const formsOfVitals = (data: { formsByCrf: Array<{ crfId: number; incomplete: number; submitted: number }> }) =>
    data.formsByCrf.find((c) => c.crfId === vitals)!;

  it('STUDY-09: a scoped nurse’s home counts her sites’ patients only (counted live); the monitor’s the kept counts of both', async () => {
    const [a, b, monitor] = [await home(s.nurseA.token), await home(s.nurseB.token), await home(s.monitor.token)];
    expect(b.subjects.total).toBe(1);
    expect(a.subjects.total).toBe(1);
    expect(monitor.subjects.total).toBe(2);
    expect(formsOfVitals(b).incomplete + formsOfVitals(b).submitted).toBe(1);
    expect(formsOfVitals(monitor).incomplete + formsOfVitals(monitor).submitted).toBe(2);
    // The two sites' live figures add up to the kept counts of the whole study.
    const sumOf = (f: (d: typeof a) => number) => f(a) + f(b);
    expect(sumOf((d) => d.subjects.active)).toBe(monitor.subjects.active);
    expect(sumOf((d) => d.subjects.thisMonth)).toBe(monitor.subjects.thisMonth);
    expect(sumOf((d) => d.forms.incomplete)).toBe(monitor.forms.incomplete);
    expect(sumOf((d) => d.forms.submitted)).toBe(monitor.forms.submitted);
  });

  it('SHELL-33: the top bar’s search finds her own site’s patients only', async () => {
    const found = async (token: string) => {
      const res = await t.call(token, 'GET', `/api/v1/base/other/searchall?key=${encodeURIComponent('院患者')}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return JSON.stringify(res.body.data);
    };
    expect(holds(await found(s.nurseB.token))).toEqual({ A: false, B: true });
    expect(holds(await found(s.nurseA.token))).toEqual({ A: true, B: false });
    expect(holds(await found(s.monitor.token))).toEqual({ A: true, B: true });
  });
});

describe('realtime pushes', () => {
  let base = '';
  const open: Socket[] = [];
  beforeAll(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    for (const socket of open) socket.disconnect();
  });
  async function watcher(token: string, hub: 'eventhub' | 'personsignalhub') {
    const socket = connectClient(`${base}/${hub}`, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      auth: { token },
    });
    open.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    const joined = (await socket.timeout(10_000).emitWithAck(STUDY_JOIN, s.studyId)) as StudyJoinAnswer;
    expect(joined).toEqual({ ok: true });
    return { socket };
  }
  const next = <T>(socket: Socket, event: string) => new Promise<T>((resolve) => socket.once(event, resolve));
  const saved = (who: 'A' | 'B') => ({
    type: 'record.saved' as const,
    studyId: s.studyId,
    subjectId: subjectIdOf[who],
    crfId: vitals,
    recordId: 1,
    by: 1,
  });

  it('a form saved for a patient is pushed to the form’s readers who see the patient’s site only', async () => {
    const [a, b, monitor] = [
      await watcher(s.nurseA.token, 'eventhub'),
      await watcher(s.nurseB.token, 'eventhub'),
      await watcher(s.monitor.token, 'eventhub'),
    ];
    const bSeen: number[] = [];
    b.socket.on('record.saved', (p: { subjectId: number }) => bSeen.push(p.subjectId));
    const toA = next<{ subjectId: number }>(a.socket, 'record.saved');
    const toMonitor = next<{ subjectId: number }>(monitor.socket, 'record.saved');
    await pushRecordSaved(t.ctx, { id: 1, occurredAt: new Date(), event: saved('A') });
    expect((await toA).subjectId).toBe(subjectIdOf.A);
    expect((await toMonitor).subjectId).toBe(subjectIdOf.A);
    // Nurse B's first push is about her own patient: patient A's never reached her.
    const toB = next<{ subjectId: number }>(b.socket, 'record.saved');
    await pushRecordSaved(t.ctx, { id: 2, occurredAt: new Date(), event: saved('B') });
    expect((await toB).subjectId).toBe(subjectIdOf.B);
    expect(bSeen).toEqual([subjectIdOf.B]);
  });

  it('a query on another site’s patient changes her count but brings her no notice', async () => {
    const b = await watcher(s.nurseB.token, 'personsignalhub');
    const a = await watcher(s.nurseA.token, 'personsignalhub');
    const notices: Array<{ subjectId: number }> = [];
    b.socket.on('notice', (n: { subjectId: number }) => notices.push(n));
    const query = (who: 'A' | 'B', queryId: number) => ({
      type: 'query.opened' as const,
      studyId: s.studyId,
      subjectId: subjectIdOf[who],
      crfId: vitals,
      queryId,
      by: null,
    });
    const countsB = next(b.socket, 'counts');
    const noticeA = next<{ subjectId: number }>(a.socket, 'notice');
    await pushQueryEvent(t.ctx, { id: 11, occurredAt: new Date(), event: query('A', 901) });
    expect(await countsB).toMatchObject({ studyId: s.studyId });
    expect((await noticeA).subjectId).toBe(subjectIdOf.A);
    const noticeB = next<{ subjectId: number }>(b.socket, 'notice');
    await pushQueryEvent(t.ctx, { id: 12, occurredAt: new Date(), event: query('B', 902) });
    expect((await noticeB).subjectId).toBe(subjectIdOf.B);
    expect(notices.map((n) => n.subjectId)).toEqual([subjectIdOf.B]);
  });
});
