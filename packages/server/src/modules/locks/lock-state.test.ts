import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipart } from '../../test/multipart.js';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/** The page's 🔒 (docs/multi-centre.md): the state route answers what the writers' gate would refuse, in its words. */
let t: TestApp;
let admin: string;
let studyId: number;
let crfId: number;
let subjectRecordId: number;
let crfDataRecordId: number;

beforeAll(async () => {
  t = await createTestApp();
  const demo = await openDemoStudy(t);
  ({ admin, studyId } = demo);
  crfId = demo.crfIds['生命体征']!;
  ({ subjectRecordId } = await enrolDemoPatient(t, admin, studyId, { subjectName: '锁定患者' }));
  const saved = await t.call(admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId,
    crfId,
    version: 0,
    values: { hr: 70 },
  });
  crfDataRecordId = saved.body.data.crfDataRecordId;
});
afterAll(() => t.close());

const state = async (query: string) =>
  (await t.call(admin, 'GET', `/api/business/lock/state?studyId=${studyId}&${query}`)).body.data;
const lock = (scope: string, targetId: number | null, locked: boolean) =>
  t.call(admin, 'PUT', '/api/business/lock', { studyId, scope, targetId, locked, reason: '核查完毕' });

describe('lock state', () => {
  it('names the form lock on its form only, and the casebook lock on every form of it', async () => {
    expect(await state(`subjectRecordId=${subjectRecordId}`)).toMatchObject({ locked: false, lock: null });
    expect((await lock('record', crfDataRecordId, true)).status).toBe(200);
    const form = await state(`subjectRecordId=${subjectRecordId}&crfDataRecordId=${crfDataRecordId}`);
    expect(form.locked).toBe(true);
    expect(form.message).toMatch(/^该表单已锁定（.+ \d{4}-\d{2}-\d{2}），如需修改请先解锁$/);
    expect(form.lock).toMatchObject({ scope: 'record', reason: '核查完毕' });
    expect((await state(`subjectRecordId=${subjectRecordId}`)).locked).toBe(false);
    await lock('record', crfDataRecordId, false);
    await lock('subject', subjectRecordId, true);
    const casebook = await state(`subjectRecordId=${subjectRecordId}&crfDataRecordId=${crfDataRecordId}`);
    expect(casebook.message).toMatch(/^该病例已锁定/);
    // The same words as the refusal of a save.
    const save = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId,
      crfId,
      crfDataRecordId,
      version: 1,
      values: { hr: 71 },
    });
    expect(save.status).toBe(423);
    expect(save.body.msg).toBe(casebook.message);
    await lock('subject', subjectRecordId, false);
  });

  it('SRCH-06: the import preview names the lock of a locked casebook, as the import would refuse it', async () => {
    const code = (await t.call(admin, 'GET', `/api/business/ducking/patientInfo/${subjectRecordId}`)).body.data
      .identificationCode as string;
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('生命体征');
    ws.addRow(['编号', 'hr']);
    ws.addRow([code, 88]);
    const body = multipart({}, [{ fileName: '导入.xlsx', data: Buffer.from(await wb.xlsx.writeBuffer()) }]);
    const preview = async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/business/import/multi_crf_sheet/multi_thread?studyId=${studyId}&submitType=0&dryRun=true`,
        headers: { ...body.headers, authorization: `Bearer ${admin}` },
        payload: body.payload,
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data as { rows: Array<{ errors: Array<{ message: string }> }> };
    };
    expect((await preview()).rows[0]!.errors).toEqual([]);
    await lock('subject', subjectRecordId, true);
    const message = (await state(`subjectRecordId=${subjectRecordId}`)).message;
    expect((await preview()).rows[0]!.errors.map((e) => e.message)).toEqual([message]);
    await lock('subject', subjectRecordId, false);
  });

  it('says a finished study is frozen', async () => {
    const detail = (await t.call(admin, 'GET', `/api/business/study/${studyId}`)).body.data;
    const finish = await t.call(admin, 'PUT', '/api/business/study', {
      id: studyId,
      studyName: detail.studyName,
      studyCode: detail.studyCode,
      status: 1,
    });
    expect(finish.status, JSON.stringify(finish.body)).toBe(200);
    const frozen = await state(`subjectRecordId=${subjectRecordId}`);
    expect(frozen).toMatchObject({
      locked: true,
      frozen: true,
      message: '该项目已结束，数据已冻结，如需修改请先重新开启项目',
    });
    const reopen = await t.call(admin, 'PUT', '/api/business/study', {
      id: studyId,
      studyName: detail.studyName,
      studyCode: detail.studyCode,
      status: 0,
      reason: '补录随访',
    });
    expect(reopen.status, JSON.stringify(reopen.body)).toBe(200);
    expect((await state(`subjectRecordId=${subjectRecordId}`)).locked).toBe(false);
  });
});
