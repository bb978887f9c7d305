import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AUDIT_ACTION_NAMES, buttonKey, crfKey, type CrfDefinition } from '@ecrf/core';
import { demoCrfs } from '../../db/demo-study.js';
import { openDemoStudy } from '../../test/demo.js';
import { multipart } from '../../test/multipart.js';
import { addStudyMember } from '../../test/study-member.js';
import { templateData } from '../print/print.service.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/**
 * The audit trail and the query list in words: item titles of the CRF version a row was written
 * under, choice labels, units of the time, original file names and Chinese action names, on the
 * page and in the CSV export, under the form page's per-CRF view rule.
 */
let t: TestApp;
let admin: string;
let studyId: number;
let subjectRecordId: number;
let labsRecord: number;
let demoRecord: number;
let imagingRecord: number;
let surgeryRecord: number;
const crfIds: Record<string, number> = {};
const files: Record<'xray' | 'report1' | 'report2', string> = { xray: '', report1: '', report2: '' };

const PNG = Buffer.concat([
  Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000', 'hex'),
  Buffer.alloc(64),
]);
const pdf = (text: string) => Buffer.from(`%PDF-1.4\n%${text}\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n`);

async function upload(fileName: string, data: Buffer, type: string) {
  const form = multipart({ studyId: String(studyId) }, [{ fileName, data, type }]);
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/common/file/upload?studyId=${studyId}`,
    headers: { ...form.headers, authorization: `Bearer ${admin}` },
    payload: form.payload,
  });
  expect(res.statusCode, res.body).toBe(200);
  const data_ = res.json().data as { fileKey: string; fileName: string };
  expect(data_.fileName).toBe(fileName);
  return data_.fileKey;
}

async function save(crfId: number, values: object, crfDataRecordId?: number, version = 0) {
  const res = await t.call(admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId,
    crfId,
    crfDataRecordId,
    version,
    values,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  // Saves of one record are never in the same millisecond in life; the test clock is frozen.
  t.clock.advance(60_000);
  return res.body.data.crfDataRecordId as number;
}

const history = async (token: string, recordId: number, itemName?: string) =>
  t.call(token, 'GET', `/api/business/crf/audit?crfDataRecordId=${recordId}${itemName ? `&itemName=${itemName}` : ''}`);

async function exportCsv(token: string) {
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/business/audit/export?studyId=${studyId}`,
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.statusCode, text: res.body, raw: res.rawPayload, headers: res.headers };
}

/** RFC 4180 rows (quoted cells, doubled quotes, CRLF). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  return rows;
}

const tokens: Record<'monitor' | 'labsOnlyNoSdv' | 'sdvNoForms' | 'vitalsViewer', string> = {
  monitor: '',
  labsOnlyNoSdv: '',
  sdvNoForms: '',
  vitalsViewer: '',
};

beforeAll(async () => {
  t = await createTestApp({ config: { dataDir: `/tmp/edc-audit-readable-${process.pid}` } });
  const demo = await openDemoStudy(t);
  ({ admin, studyId } = demo);
  Object.assign(crfIds, demo.crfIds);
  const enrolled = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName: '孙九',
    gender: 1,
    diseaseCode: 'LSS',
  });
  expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
  subjectRecordId = enrolled.body.data.subjectRecordId;

  files.xray = await upload('术前正位片.png', PNG, 'image/png');
  files.report1 = await upload('血常规报告.pdf', pdf('a'), 'application/pdf');
  files.report2 = await upload('血常规复查.pdf', pdf('b'), 'application/pdf');

  const labs = crfIds['实验室检查']!;
  labsRecord = await save(labs, { hb: '130', hb_unit: 'g/L', lab_report: files.report1 });
  await save(labs, { hb: '13.5', hb_unit: 'g/dL', lab_report: files.report2 }, labsRecord, 1);
  demoRecord = await save(crfIds['人口学资料']!, { sex: '1', comorbid: ['htn', 'other'], comorbid_addition: '痛风' });
  imagingRecord = await save(crfIds['影像学检查']!, {
    img_date: '2026-11-01',
    xray: JSON.stringify([{ uploadTime: '2026-11-01 09:00:00', remarks: '术前', dialogImgUrl: files.xray }]),
  });
  surgeryRecord = await save(crfIds['手术记录']!, {
    implants: [{ implant_name: '椎弓根螺钉', implant_qty: '4', implant_price: '3500' }],
  });

  const sdv = buttonKey('business.crf.sdv');
  tokens.monitor = await addStudyMember(t, admin, studyId, '13300000001', {
    permissions: [sdv, crfKey(labs, 'view'), crfKey(crfIds['手术记录']!, 'view')],
  });
  tokens.labsOnlyNoSdv = await addStudyMember(t, admin, studyId, '13300000002', {
    permissions: [crfKey(labs, 'view')],
  });
  tokens.sdvNoForms = await addStudyMember(t, admin, studyId, '13300000003', { permissions: [sdv] });
  tokens.vitalsViewer = await addStudyMember(t, admin, studyId, '13300000004', {
    permissions: [crfKey(crfIds['生命体征']!, 'view')],
  });
});
afterAll(() => t.close());

describe('the audit trail in words', () => {
  it('an item reads with its title, values with the unit of their time, and 保存 instead of item.update', async () => {
    const rows = (await history(admin, labsRecord, 'hb')).body.data;
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      action: 'item.update',
      actionName: '保存',
      itemName: 'hb',
      itemTitle: '血红蛋白',
      crfTitle: '实验室检查',
      oldValue: 130,
      newValue: 13.5,
      oldText: '130 g/L',
      newText: '13.5 g/dL',
    });
    expect(rows[1]).toMatchObject({ oldText: '', newText: '130 g/L' });
    const unit = (await history(admin, labsRecord, 'hb_unit')).body.data[0];
    expect(unit).toMatchObject({ itemTitle: '血红蛋白（单位）', oldText: 'g/L', newText: 'g/dL' });
  });

  it('choices read as labels, checkbox lists too, with the addition text', async () => {
    const rows = (await history(admin, demoRecord)).body.data as Array<{ itemName: string; newText: string }>;
    const byItem = Object.fromEntries(rows.map((r) => [r.itemName, r]));
    expect(byItem.sex).toMatchObject({ itemTitle: '性别', newText: '男' });
    expect(byItem.comorbid).toMatchObject({ itemTitle: '合并症', newText: '高血压、其他（痛风）' });
    expect(rows.find((r) => (r as { action?: string }).action === 'crf.create')).toMatchObject({
      actionName: '新建表单记录',
    });
  });

  it('uploads read as their original names, with links through the download call', async () => {
    const report = (await history(admin, labsRecord, 'lab_report')).body.data[0];
    expect(report).toMatchObject({
      itemTitle: '化验单',
      oldText: '血常规报告.pdf',
      newText: '血常规复查.pdf',
      oldFiles: [{ fileKey: files.report1, fileName: '血常规报告.pdf' }],
      newFiles: [{ fileKey: files.report2, fileName: '血常规复查.pdf' }],
    });
    const xray = (await history(admin, imagingRecord, 'xray')).body.data[0];
    expect(xray).toMatchObject({
      itemTitle: '正侧位片',
      newText: '术前正位片.png（术前）',
      newFiles: [{ fileKey: files.xray, fileName: '术前正位片.png' }],
    });
    expect(JSON.stringify(xray)).not.toContain('"1 张图片"');
  });

  it('the form and the overview name the files their values refer to', async () => {
    const detail = (await t.call(admin, 'GET', `/api/v3/business/crf/${subjectRecordId}?crfId=${crfIds['实验室检查']}`))
      .body.data;
    expect(detail.files).toEqual({ [files.report2]: '血常规复查.pdf' });
    const overview = (await t.call(admin, 'GET', `/api/v3/business/overview/${subjectRecordId}`)).body.data;
    expect(overview.files).toEqual({ [files.report2]: '血常规复查.pdf', [files.xray]: '术前正位片.png' });
  });

  it('a printed form (Word template) names its files too', () => {
    const labs = demoCrfs().find((c) => c.definition.title === '实验室检查')!.definition;
    const data = templateData(
      labs,
      { lab_report: files.report2, hb: 13.5 },
      new Map([[files.report2, '血常规复查.pdf']]),
    );
    expect(data).toMatchObject({ lab_report: '血常规复查.pdf', hb: '13.5' });
  });

  it('a file an old value referred to opens for whoever may view its form, and for nobody else', async () => {
    const down = (token: string, key: string) =>
      t.app.inject({
        method: 'GET',
        url: `/api/v1/fileupload/downfile?fileKey=${key}`,
        headers: { authorization: `Bearer ${token}` },
      });
    // report1 was replaced: no live record holds it, the trail does.
    expect((await down(tokens.monitor, files.report1)).statusCode).toBe(200);
    expect((await down(tokens.labsOnlyNoSdv, files.report1)).statusCode).toBe(200);
    expect((await down(tokens.vitalsViewer, files.report1)).statusCode).toBe(403);
    expect((await down(tokens.monitor, files.xray)).statusCode).toBe(403);
  });

  it('a row keeps the item title of the CRF version it was written under', async () => {
    const labs = demoCrfs().find((c) => c.definition.title === '实验室检查')!.definition;
    const renamed = JSON.parse(JSON.stringify(labs), (key, value: unknown) =>
      key === 'title' && value === '血红蛋白' ? '血红蛋白（HGB）' : value,
    ) as CrfDefinition;
    const body = multipart({ studyId: String(studyId), onExisting: JSON.stringify({ 实验室检查: 'version' }) }, [
      { fileName: 'labs.json', data: JSON.stringify(renamed) },
    ]);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/system/crf',
      headers: { ...body.headers, authorization: `Bearer ${admin}` },
      payload: body.payload,
    });
    expect(res.statusCode, res.body).toBe(200);
    const other = await t.call(admin, 'POST', '/api/business/subject', {
      studyId,
      subjectName: '周十',
      gender: 0,
      diseaseCode: 'LSS',
    });
    const saved = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId: other.body.data.subjectRecordId,
      crfId: crfIds['实验室检查'],
      version: 0,
      values: { hb: '120' },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const newRow = (await history(admin, saved.body.data.crfDataRecordId, 'hb')).body.data[0];
    expect(newRow).toMatchObject({ crfVersion: 2, itemTitle: '血红蛋白（HGB）', newText: '120 g/L' });
    const oldRow = (await history(admin, labsRecord, 'hb')).body.data[0];
    expect(oldRow).toMatchObject({ crfVersion: 1, itemTitle: '血红蛋白' });
  });

  it('the patient trail (操作记录) and one row read the same words', async () => {
    const list = (
      await t.call(admin, 'GET', `/api/business/subjectRecord/operates?subjectRecordId=${subjectRecordId}&pageSize=100`)
    ).body.data.list as Array<{ id: number; action: string; actionName: string; itemName: string | null }>;
    expect(list.find((r) => r.action === 'subject.create')).toMatchObject({
      actionName: '添加患者',
      newText: expect.stringContaining('性别：男'),
    });
    const hb = list.find((r) => r.itemName === 'hb')!;
    const one = (await t.call(admin, 'GET', `/api/business/subjectRecord/operate?id=${hb.id}`)).body.data;
    expect(one).toMatchObject({ actionName: '保存', itemTitle: '血红蛋白', newText: '13.5 g/dL' });
    // A member who may not view the form gets nothing of its rows.
    const hidden = await t.call(tokens.vitalsViewer, 'GET', `/api/business/subjectRecord/operate?id=${hb.id}`);
    expect(hidden.status).toBe(403);
    const theirs = (
      await t.call(
        tokens.vitalsViewer,
        'GET',
        `/api/business/subjectRecord/operates?subjectRecordId=${subjectRecordId}&pageSize=100`,
      )
    ).body.data.list as Array<{ crfId: number | null }>;
    expect(theirs.length).toBeGreaterThan(0);
    expect(theirs.every((r) => r.crfId === null)).toBe(true);
  });

  it('a page of the trail costs the same statements for 1 row as for 50 (no query per row)', async () => {
    const url = (size: number) =>
      `/api/business/subjectRecord/operates?subjectRecordId=${subjectRecordId}&pageNum=1&pageSize=${size}`;
    await t.call(admin, 'GET', url(50));
    // Subscribers of earlier changes (system queries, realtime pushes) read too: let them finish first.
    await t.ctx.events.drain();
    const spy = vi.spyOn(t.db, 'select');
    await t.call(admin, 'GET', url(1));
    const one = spy.mock.calls.length;
    spy.mockClear();
    const many = (await t.call(admin, 'GET', url(50))).body.data.list.length;
    expect(many).toBeGreaterThan(10);
    // A few more at most (patient labels, file names, versions of query rows), never one per row.
    expect(spy.mock.calls.length).toBeLessThanOrEqual(one + 4);
    spy.mockRestore();
  });
});

describe('the query list and the query in words', () => {
  let hbDoubt: number;
  let cellDoubt: number;

  beforeAll(async () => {
    const open = async (body: object) => {
      const res = await t.call(admin, 'POST', '/api/business/doubt/open', { ...body, doubtDescription: '请核实' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data.doubtId as number;
    };
    hbDoubt = await open({ crfDataRecordId: labsRecord, itemName: 'hb' });
    cellDoubt = await open({
      crfDataRecordId: surgeryRecord,
      itemName: 'implant_price',
      groupName: 'implants',
      groupIndex: 0,
    });
    await open({ crfDataRecordId: imagingRecord, itemName: 'xray' });
    expect(
      (await t.call(admin, 'PUT', '/api/business/doubt/reply', { doubtId: hbDoubt, content: '已核对原始化验单' }))
        .status,
    ).toBe(200);
  });

  it('QRY-03: the list keeps the spec fields and adds the title, the value with its unit, the form and the visit', async () => {
    const list = (await t.call(admin, 'GET', `/api/business/doubts?studyId=${studyId}&pageSize=50`)).body.data
      .list as Array<Record<string, unknown>>;
    const hb = list.find((d) => d.doubtId === hbDoubt)!;
    expect(hb).toMatchObject({
      itemName: 'hb',
      itemValue: 13.5,
      groupName: null,
      itemTitle: '血红蛋白',
      groupTitle: null,
      itemValueText: '13.5 g/dL',
      itemUnit: 'g/dL',
      crfTitle: '实验室检查',
      stageName: '基线',
      crfVersion: 1,
    });
    for (const field of [
      'doubtId',
      'crfDataRecordId',
      'doubtDescription',
      'optionType',
      'doubtType',
      'userName',
      'createDate',
    ]) {
      expect(hb).toHaveProperty(field);
    }
    expect(list.find((d) => d.doubtId === cellDoubt)).toMatchObject({
      itemName: 'implant_price',
      itemTitle: '单价',
      groupTitle: '植入物',
      itemValueText: '3500 元',
      itemUnit: '元',
      crfTitle: '手术记录',
      stageName: '手术',
    });
    expect(list.find((d) => d.itemName === 'xray')).toMatchObject({
      itemTitle: '正侧位片',
      itemValueText: '术前正位片.png（术前）',
      itemFiles: [{ fileKey: files.xray, fileName: '术前正位片.png' }],
    });
  });

  it('a member who may view one form lists only its queries', async () => {
    const list = (await t.call(tokens.monitor, 'GET', `/api/business/doubts?studyId=${studyId}&pageSize=50`)).body.data
      .list as Array<{ crfTitle: string }>;
    expect(new Set(list.map((d) => d.crfTitle))).toEqual(new Set(['实验室检查', '手术记录']));
  });

  it('the query reads its values (raised, now, in the thread) in words', async () => {
    const detail = (await t.call(admin, 'GET', `/api/business/doubt/${hbDoubt}`)).body.data;
    expect(detail).toMatchObject({
      itemTitle: '血红蛋白',
      itemValueText: '13.5 g/dL',
      currentValueText: '13.5 g/dL',
      crfTitle: '实验室检查',
      stageName: '基线',
    });
    expect(detail.messages.map((m: { kind: string; itemValueText: string }) => [m.kind, m.itemValueText])).toEqual([
      ['open', '13.5 g/dL'],
      ['reply', '13.5 g/dL'],
    ]);
  });

  it('raising, replying, re-opening and closing a query are all in the trail, with their names', async () => {
    expect(
      (await t.call(admin, 'POST', '/api/business/doubt/open', { doubtId: hbDoubt, doubtDescription: '单位请再确认' }))
        .status,
    ).toBe(200);
    expect(
      (await t.call(admin, 'PUT', '/api/business/doubt/close', { doubtId: hbDoubt, content: '已核实无误' })).status,
    ).toBe(200);
    const rows = (await history(admin, labsRecord, 'hb')).body.data as Array<Record<string, unknown>>;
    expect(rows.slice(0, 4).map((r) => [r.actionName, r.itemTitle, r.newText, r.reason])).toEqual([
      ['关闭质疑', '血红蛋白', '', '已核实无误'],
      ['重新开启质疑', '血红蛋白', '单位请再确认', null],
      ['回复质疑', '血红蛋白', '已核对原始化验单', null],
      ['发起质疑', '血红蛋白', '请核实', null],
    ]);
  });

  it('a page of queries costs the same statements for 1 query as for all (no query per row)', async () => {
    const url = (size: number) => `/api/business/doubts?studyId=${studyId}&pageNum=1&pageSize=${size}`;
    await t.call(admin, 'GET', url(50));
    await t.ctx.events.drain();
    const spy = vi.spyOn(t.db, 'select');
    await t.call(admin, 'GET', url(1));
    const one = spy.mock.calls.length;
    spy.mockClear();
    expect((await t.call(admin, 'GET', url(50))).body.data.list.length).toBeGreaterThanOrEqual(3);
    // One more at most: the file names are read only when a page shows a file.
    expect(spy.mock.calls.length).toBeLessThanOrEqual(one + 1);
    spy.mockRestore();
  });
});

describe('the audit CSV export', () => {
  it('exports the study audit trail as CSV', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/business/audit/export?studyId=${studyId}`,
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.body).toContain('item.update');
  });

  it('is UTF-8 with a BOM: the words of the page, then the raw codes and values', async () => {
    const res = await exportCsv(admin);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv; charset=utf-8');
    expect([...res.raw.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const [header, ...rows] = parseCsv(res.text.slice(1));
    expect(header).toEqual([
      '序号',
      '时间',
      '操作人',
      '操作',
      '受试者编号',
      '表单',
      'CRF版本',
      '题目',
      '原值',
      '新值',
      '原因',
      '操作代码',
      '题目变量名',
      '原值（原始）',
      '新值（原始）',
      '受试者记录ID',
      'CRF记录ID',
      'CRF ID',
      '时间（UTC）',
    ]);
    const col = (name: string) => header!.indexOf(name);
    const hb = rows.find((r) => r[col('题目变量名')] === 'hb' && r[col('原值（原始）')] === '130')!;
    expect(hb[col('操作')]).toBe('保存');
    expect(hb[col('受试者编号')]).toBe('LSS-0001');
    expect(hb[col('表单')]).toBe('实验室检查');
    expect(hb[col('题目')]).toBe('血红蛋白');
    expect([hb[col('原值')], hb[col('新值')]]).toEqual(['130 g/L', '13.5 g/dL']);
    expect(hb[col('操作代码')]).toBe('item.update');
    expect(hb[col('时间')]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const report = rows.find((r) => r[col('题目变量名')] === 'lab_report' && r[col('原值')] !== '')!;
    expect([report[col('原值')], report[col('新值')]]).toEqual(['血常规报告.pdf', '血常规复查.pdf']);
    expect(report[col('新值（原始）')]).toBe(files.report2);
    const actionNames = new Set(rows.map((r) => r[col('操作')]));
    for (const name of ['添加患者', '保存', '新建表单记录', '发起质疑', '回复质疑', '关闭质疑', '上传CRF']) {
      expect(actionNames, name).toContain(name);
    }
    // Every row has a Chinese action name.
    expect(rows.every((r) => Object.values(AUDIT_ACTION_NAMES).includes(r[col('操作')] as never))).toBe(true);
  });

  it('follows the form page rule: each member reads only the rows of the forms they may view (matrix)', async () => {
    const formsIn = (text: string) => {
      const [header, ...rows] = parseCsv(text.slice(1));
      const form = header!.indexOf('表单');
      const code = header!.indexOf('操作代码');
      return {
        forms: new Set(rows.filter((r) => r[code]!.startsWith('item.')).map((r) => r[form])),
        patientRows: rows.filter((r) => r[code]!.startsWith('subject.')).length,
        text,
      };
    };
    const all = formsIn((await exportCsv(admin)).text);
    expect(all.forms).toEqual(new Set(['实验室检查', '人口学资料', '影像学检查', '手术记录']));

    const monitor = formsIn((await exportCsv(tokens.monitor)).text);
    expect(monitor.forms).toEqual(new Set(['实验室检查', '手术记录']));
    expect(monitor.patientRows).toBeGreaterThan(0);
    expect(monitor.text).not.toContain('术前正位片.png');
    expect(monitor.text).not.toContain('合并症');

    const noForms = formsIn((await exportCsv(tokens.sdvNoForms)).text);
    expect(noForms.forms.size).toBe(0);
    expect(noForms.text).not.toContain('血红蛋白');
    expect(noForms.patientRows).toBeGreaterThan(0);

    // Viewing a form is not enough to export the study's trail: that is the monitors' button.
    expect((await exportCsv(tokens.labsOnlyNoSdv)).status).toBe(403);
    expect((await exportCsv(tokens.vitalsViewer)).status).toBe(403);

    // What an audit view shows is exported under the view's own rule.
    const scoped = async (token: string, query: string) => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/business/audit/export?${query}`,
        headers: { authorization: `Bearer ${token}` },
      });
      return { status: res.statusCode, ...(res.statusCode === 200 ? formsIn(res.body) : {}) };
    };
    expect(await scoped(tokens.labsOnlyNoSdv, `crfDataRecordId=${labsRecord}`)).toMatchObject({
      status: 200,
      forms: new Set(['实验室检查']),
    });
    expect((await scoped(tokens.vitalsViewer, `crfDataRecordId=${labsRecord}`)).status).toBe(403);
    expect((await scoped(tokens.vitalsViewer, `crfDataRecordId=${imagingRecord}&studyId=${studyId}`)).status).toBe(403);
    const patient = await scoped(tokens.labsOnlyNoSdv, `subjectRecordId=${subjectRecordId}`);
    expect(patient).toMatchObject({ status: 200, forms: new Set(['实验室检查']) });
    expect(patient.patientRows).toBeGreaterThan(0);
    const nothing = await scoped(tokens.vitalsViewer, `subjectRecordId=${subjectRecordId}`);
    expect(nothing).toMatchObject({ status: 200, forms: new Set() });
    expect(nothing.text).not.toContain('血红蛋白');
  });

  it('exports what one audit view shows: a patient, a record, an item', async () => {
    const rowsOf = async (query: string) => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/business/audit/export?studyId=${studyId}&${query}`,
        headers: { authorization: `Bearer ${admin}` },
      });
      expect(res.statusCode).toBe(200);
      const [header, ...rows] = parseCsv(res.body.slice(1));
      return rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]])));
    };
    const patient = await rowsOf(`subjectRecordId=${subjectRecordId}`);
    expect(new Set(patient.map((r) => r['受试者记录ID']))).toEqual(new Set([String(subjectRecordId)]));
    const record = await rowsOf(`crfDataRecordId=${labsRecord}`);
    expect(new Set(record.map((r) => r['表单']))).toEqual(new Set(['实验室检查']));
    const item = await rowsOf(`crfDataRecordId=${labsRecord}&itemName=hb`);
    expect(new Set(item.map((r) => r['题目']))).toEqual(new Set(['血红蛋白']));
    expect(item.length).toBeLessThan(record.length);
  });

  it('a cell that Excel would run as a formula is written as text; numbers stay numbers', async () => {
    const note = await save(crfIds['人口学资料']!, { history_note: '=HYPERLINK("http://x")' }, demoRecord, 1);
    expect(note).toBe(demoRecord);
    const text = (await exportCsv(admin)).text;
    expect(text).toContain(`"'=HYPERLINK(""http://x"")"`);
    expect(text).not.toMatch(/,=HYPERLINK/);
  });
});

describe('every action code the server writes has a name', () => {
  it('the sources name no audit action outside core’s table, and the table names none the server never writes', () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const sources: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) sources.push(full);
      }
    };
    walk(root);
    const written = new Set<string>();
    const code = /'([a-z_]+(?:\.[a-z_]+)+)'/g;
    for (const file of sources) {
      const text = fs.readFileSync(file, 'utf8');
      for (const match of text.matchAll(code)) {
        // An audit action is written as `action: …` (possibly a conditional) or handed to an audit helper.
        const before = text.slice(Math.max(0, match.index - 160), match.index);
        const statement = before.slice(before.lastIndexOf(';') + 1);
        // An error's code (AppError.badRequest('follow.marked', …)) is not an audit action.
        if (/\bAppError\.\w+\(\s*$/.test(before)) continue;
        if (/\baction\b\s*[:=]/.test(statement) || /\baudit[A-Z]\w*\(/.test(statement)) written.add(match[1]!);
      }
    }
    expect(written.size).toBeGreaterThan(30);
    const names = AUDIT_ACTION_NAMES as Record<string, string>;
    expect([...written].filter((c) => !names[c])).toEqual([]);
    expect(Object.keys(names).filter((c) => !written.has(c))).toEqual([]);
    for (const name of Object.values(names)) expect(name).toMatch(/[\u4e00-\u9fff]|SDV/);
  });
});
