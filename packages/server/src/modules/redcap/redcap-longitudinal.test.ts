import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { XMLParser } from 'fast-xml-parser';
import { auditEvents, crfStageCrfs, crfStages } from '../../db/schema/index.js';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { readCsv } from './redcap-csv.js';

let t: TestApp;
let studyId: number;
let token: string;
const code = { A: '', B: '' };
/** Unique event names of the demo study's stages, by stage name. */
const ev: Record<string, string> = {};
/** Instrument (form) names by CRF title. */
const form: Record<string, string> = {};

type Row = Record<string, string>;

async function redcap(params: Record<string, string | string[]>) {
  const body = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (Array.isArray(value)) value.forEach((v, i) => body.append(`${key}[${i}]`, v));
    else body.append(key, value);
  }
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/redcap',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: body.toString(),
  });
  return {
    status: res.statusCode,
    text: res.body,
    json: () => res.json(),
    /** The error of a json call (REDCap's `{"error": …}`). */
    error: (): string => (res.json() as { error: string }).error,
  };
}

const call = (params: Record<string, string | string[]>) => redcap({ token, format: 'json', ...params });

async function records(extra: Record<string, string | string[]> = {}) {
  const res = await call({ content: 'record', type: 'flat', ...extra });
  expect(res.status, res.text).toBe(200);
  return res.json() as Row[];
}

const importRows = (rows: Row[], extra: Record<string, string> = {}) =>
  call({ content: 'record', returnFormat: 'json', data: JSON.stringify(rows), ...extra });

const parseXml = (xml: string) =>
  new XMLParser({ parseTagValue: false, ignoreDeclaration: true, isArray: (name) => name === 'item' }).parse(
    xml,
  ) as Record<string, { item: Row[] }>;

beforeAll(async () => {
  t = await createTestApp({ config: { dataDir: `/tmp/edc-redcap-longitudinal-${process.pid}` } });
  const demo = await openDemoStudy(t);
  studyId = demo.studyId;
  const a = await enrolDemoPatient(t, demo.admin, studyId, { subjectName: '钱七' });
  const b = await enrolDemoPatient(t, demo.admin, studyId, { subjectName: '孙八' });
  code.A = a.identificationCode;
  code.B = b.identificationCode;
  let admin = demo.admin;
  const save = async (subjectRecordId: number, crf: string, values: object) => {
    const res = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId,
      crfId: demo.crfIds[crf],
      version: 0,
      values,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };
  // A's forms at 16:00 in the study's zone (the test clock), B's an hour later: the date range tells them apart.
  await save(a.subjectRecordId, '人口学资料', {
    sex: '1',
    birth: '1960-05-01',
    weight: '65',
    height: '170',
    smoke: '1',
    smoke_years: '10',
    comorbid: ['htn'],
  });
  await save(a.subjectRecordId, '手术记录', { op_at: '2026-01-02 08:00:00', implants: [{ implant_name: '螺钉' }] });
  await save(a.subjectRecordId, '术后随访', { fu_date: '2026-04-05', odi: '30' });
  await save(a.subjectRecordId, '术后随访', { fu_date: '2026-07-05', odi: '20' });
  t.clock.advance(60 * 60_000);
  admin = (await t.login()).token;
  await save(b.subjectRecordId, '人口学资料', { sex: '2', birth: '1970-01-01', weight: '50', height: '160' });
  token = (await t.call(admin, 'POST', '/api/system/user/profile/apiToken', { studyId })).body.data.token;
  for (const e of (await call({ content: 'event' })).json() as Row[]) ev[e.event_name!] = e.unique_event_name!;
  for (const i of (await call({ content: 'instrument' })).json() as Row[]) {
    form[i.instrument_label!] = i.instrument_name!;
  }
});
afterAll(() => t.close());

describe('REDCap API: the stages as events', () => {
  it('answers events, the arm and the instrument–event mapping as REDCap does, in json, csv and xml', async () => {
    const events = (await call({ content: 'event' })).json() as Array<Record<string, unknown>>;
    const stages = await t.db.select().from(crfStages).where(eq(crfStages.studyId, studyId)).orderBy(asc(crfStages.id));
    expect(events).toEqual(
      stages.map((s) => ({
        event_name: s.name,
        arm_num: 1,
        unique_event_name: expect.stringMatching(/^[0-9a-f]{10}_arm_1$/),
        custom_event_label: '',
        event_id: s.id,
      })),
    );
    // REDCap names an event whose label has no Latin letters by the first 10 digits of the label's MD5.
    expect(ev['基线']).toBe('79e32d6f86_arm_1');
    expect((await call({ content: 'arm' })).json()).toEqual([{ arm_num: 1, name: 'Arm 1' }]);
    const refused = await call({ content: 'arm', arms: ['2'] });
    expect([refused.status, refused.error()]).toEqual([400, expect.stringContaining('参数 arms')]);

    const mapping = (await call({ content: 'formEventMapping', arms: ['1'] })).json() as Row[];
    const instruments = (await call({ content: 'instrument' })).json() as Row[];
    expect(mapping.map((m) => m.form).sort()).toEqual(instruments.map((i) => i.instrument_name).sort());
    expect(mapping).toContainEqual({ arm_num: 1, unique_event_name: ev['基线'], form: form['人口学资料'] });
    expect(mapping).toContainEqual({ arm_num: 1, unique_event_name: ev['术后随访'], form: form['术后随访'] });
    expect(mapping.filter((m) => m.unique_event_name === ev['手术']).length).toBeGreaterThan(1);

    const csv = await call({ content: 'event', format: 'csv' });
    expect(csv.text.split('\n')[0]).toBe('event_name,arm_num,unique_event_name,custom_event_label,event_id');
    const xml = parseXml((await call({ content: 'formEventMapping', format: 'xml' })).text);
    expect(xml.items!.item).toHaveLength(mapping.length);
    expect(parseXml((await call({ content: 'arm', format: 'xml' })).text).arms!.item).toEqual([
      { arm_num: '1', name: 'Arm 1' },
    ]);
    expect((await call({ content: 'project' })).json()).toMatchObject({ is_longitudinal: 1 });
  });

  it('exports a row per record and event, redcap_event_name on each; events[] narrows, labels name events', async () => {
    const mine = (await records({ records: [code.A] })).map((r) => [
      r.redcap_event_name,
      r.redcap_repeat_instrument,
      r.redcap_repeat_instance,
    ]);
    expect(mine).toEqual([
      [ev['基线'], '', ''],
      [ev['手术'], '', ''],
      [ev['手术'], expect.stringContaining(form['手术记录']!), '1'],
      [ev['术后随访'], form['术后随访'], '1'],
      [ev['术后随访'], form['术后随访'], '2'],
    ]);
    expect(new Set(mine.map((k) => k.join('|'))).size).toBe(mine.length);
    const followUps = await records({ records: [code.A], events: [ev['术后随访']!] });
    expect(followUps.map((r) => r.odi)).toEqual(['30', '20']);
    const unknown = await call({ content: 'record', events: ['visit_9_arm_1'] });
    expect([unknown.status, unknown.error()]).toEqual([400, expect.stringContaining('visit_9_arm_1')]);

    const labelled = await records({ records: [code.A], rawOrLabel: 'label' });
    expect(labelled.map((r) => r.redcap_event_name)).toEqual(['基线', '手术', '手术', '术后随访', '术后随访']);
    expect(labelled.at(-1)!.redcap_repeat_instrument).toBe('术后随访');
    // EAV names events by eventName, as REDCap reads it there (PyCap sends label).
    const eav = (type: string) => call({ content: 'record', type: 'eav', records: [code.A], eventName: type });
    expect(((await eav('label')).json() as Row[]).map((r) => r.redcap_event_name)).toContain('基线');
    expect(((await eav('unique')).json() as Row[]).map((r) => r.redcap_event_name)).toContain(ev['基线']);
  });

  it("imports each row into its event's forms; a value for another event's form is refused by name", async () => {
    const ok = await importRows([{ record_id: code.A, redcap_event_name: ev['基线']!, weight: '66' }]);
    expect([ok.status, ok.text]).toEqual([200, '{"count":1}']);
    const wrong = await importRows([{ record_id: code.A, redcap_event_name: ev['手术']!, weight: '67' }]);
    expect(wrong.status).toBe(400);
    expect(wrong.error()).toMatch(new RegExp(`^"${code.A}","weight","67","第1行：字段所在的表单 \\S+ 不在事件`));
    const repeat = await importRows([
      {
        record_id: code.A,
        redcap_event_name: ev['基线']!,
        redcap_repeat_instrument: form['术后随访']!,
        redcap_repeat_instance: '1',
        odi: '31',
      },
    ]);
    expect(repeat.error()).toContain(`不在事件 ${ev['基线']}`);
    // Every row of the record back, with overwrite: another event's blank cells erase nothing.
    const before = await records({ records: [code.A] });
    const again = await importRows(before, { overwriteBehavior: 'overwrite' });
    expect(again.status, again.text).toBe(200);
    expect(await records({ records: [code.A] })).toEqual(before);
  });
});

describe('REDCap API: filterLogic per record and event', () => {
  it("[field] is the field in the row's event; [event][field] in the named event, on every row", async () => {
    const rows = await records({ filterLogic: "[sex] = '1'" });
    expect(rows.map((r) => [r.record_id, r.redcap_event_name])).toEqual([[code.A, ev['基线']]]);
    const all = await records({ filterLogic: `[${ev['基线']}][sex] = '1'` });
    expect(all.map((r) => r.record_id)).toEqual(Array(5).fill(code.A));
    const instance = await records({ filterLogic: `[${ev['基线']}][sex] = '1' and [odi] > 25` });
    expect(instance.map((r) => r.odi)).toEqual(['30']);
    expect(await records({ filterLogic: `[${ev['基线']}][comorbid(htn)] = '1'` })).toHaveLength(5);
    expect(await records({ filterLogic: `[${ev['基线']}][comorbid(dm)] = '1'` })).toHaveLength(0);
  });

  it('refuses an event that is not the project’s and a repeat instance reference', async () => {
    for (const logic of ["[visit_9_arm_1][sex] = '1'", "[sex][2] = '1'", `[${ev['基线']}][nope] = 1`]) {
      const res = await call({ content: 'record', filterLogic: logic });
      expect([res.status, res.error()], logic).toEqual([400, expect.stringContaining('参数 filterLogic 无法执行')]);
    }
  });
});

describe('REDCap API: every export parameter carried out or refused', () => {
  it('dateRangeBegin and dateRangeEnd select the records changed in the range (the study’s time)', async () => {
    const ids = async (range: Record<string, string>) =>
      [...new Set((await records(range)).map((r) => r.record_id))].sort();
    expect(await ids({ dateRangeBegin: '2026-11-22 16:30:00' })).toEqual([code.A, code.B].sort());
    expect(await ids({ dateRangeEnd: '2026-11-22 16:30:00' })).toEqual([code.A]);
    expect(await ids({ dateRangeBegin: '2026-11-22 16:30', dateRangeEnd: '2026-11-22' })).toEqual(
      [code.A, code.B].sort(),
    );
    expect(await ids({ dateRangeEnd: '2026-11-21' })).toEqual([]);
    const bad = await call({ content: 'record', dateRangeBegin: '22/11/2026' });
    expect(bad.error()).toContain('dateRangeBegin');
  });

  it('label headers in csv, checkbox labels with label values, gray statuses 0 or blank', async () => {
    const csv = await redcap({
      token,
      content: 'record',
      format: 'csv',
      records: [code.A],
      rawOrLabelHeaders: 'label',
    });
    const header = csv.text.split('\n')[0]!;
    const recordLabel = ((await call({ content: 'metadata' })).json() as Row[])[0]!.field_label;
    expect(header.startsWith(`${recordLabel},Event Name,Repeat Instrument,Repeat Instance,`), header).toBe(true);
    expect(header).toContain('合并症 (choice=高血压)');
    expect(header).toContain('Complete?');
    const json = await call({ content: 'record', rawOrLabelHeaders: 'label' });
    expect(json.error()).toContain('rawOrLabelHeaders');

    const boxes = await records({ records: [code.A], rawOrLabel: 'label', exportCheckboxLabel: 'true' });
    expect(boxes[0]).toMatchObject({ comorbid___htn: '高血压', comorbid___dm: '' });
    expect((await call({ content: 'record', exportCheckboxLabel: 'true' })).error()).toContain('rawOrLabel=label');

    const status = `${form['生命体征']}_complete`;
    expect((await records({ records: [code.A] }))[0]![status]).toBe('0');
    expect((await records({ records: [code.A], exportBlankForGrayFormStatus: 'true' }))[0]![status]).toBe('');
  });

  it('refuses what it does not carry out when asked for anything but the default', async () => {
    const asked = {
      exportSurveyFields: 'true',
      exportDataAccessGroups: 'true',
      csvDelimiter: ';',
      decimalCharacter: ',',
    };
    for (const [name, value] of Object.entries(asked)) {
      const res = await call({ content: 'record', [name]: value });
      expect([res.status, res.error()], name).toEqual([400, expect.stringContaining(name)]);
    }
    const defaults = await call({
      content: 'record',
      exportSurveyFields: 'false',
      exportDataAccessGroups: 'False',
      csvDelimiter: ',',
      decimalCharacter: '.',
      eventName: 'label',
    });
    expect(defaults.status).toBe(200);
  });
});

describe('REDCap API: an import never drops a value unseen', () => {
  const baseline = (values: Row): Row => ({ record_id: code.A, redcap_event_name: ev['基线']!, ...values });

  it('a new value for an item its display conditions hide is refused; a stored one the row hides is cleared', async () => {
    const hidden = await importRows([baseline({ smoke: '0', smoke_years: '12' })]);
    expect(hidden.status).toBe(400);
    expect(hidden.error()).toMatch(new RegExp(`^"${code.A}","smoke_years","12","题目按显示条件`));
    const addition = await importRows([baseline({ comorbid_addition: '痛风' })]);
    expect(addition.error()).toMatch(/"comorbid_addition","痛风","所选选项不需要注明/);

    const cleared = await importRows([baseline({ smoke: '0', smoke_years: '10' })]);
    expect(cleared.status, cleared.text).toBe(200);
    expect((await records({ records: [code.A] }))[0]).toMatchObject({ smoke: '0', smoke_years: '' });
    const trail = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.itemName, 'smoke_years'), eq(auditEvents.action, 'item.update')))
      .orderBy(asc(auditEvents.id));
    expect(trail.at(-1)).toMatchObject({ newValue: null, reason: 'API导入' });
    expect(Number(trail.at(-1)!.oldValue)).toBe(10);
  });

  it("a calculated item's value stands only when it is the form's; two values for one field are refused", async () => {
    const calc = await importRows([baseline({ weight: '70', bmi: '99' })]);
    expect(calc.error()).toMatch(/"bmi","99","计算字段的值由公式算出（为 24.2）/);
    const same = await importRows([baseline({ weight: '70', bmi: '24.2' })]);
    expect(same.status, same.text).toBe(200);
    const twice = await importRows([baseline({ weight: '60' }), baseline({ weight: '61' })]);
    expect(twice.error()).toMatch(/"weight","61","同一记录的这个字段/);
  });

  it("a form's status is the form's: sent as it is it passes, another is refused rather than ignored", async () => {
    const status = `${form['人口学资料']}_complete`;
    const gray = `${form['生命体征']}_complete`;
    expect((await importRows([baseline({ [status]: '0', [gray]: '0', weight: '70' })])).status).toBe(200);
    const submit = await importRows([baseline({ [status]: '2' })]);
    expect(submit.error()).toMatch(new RegExp(`"${status}","2","导入不能更改表单状态（现为 0）`));
  });

  it('dateFormat MDY and DMY read slashed dates as REDCap does; a date that is no day is refused', async () => {
    const lab = (value: string, dateFormat: string) => importRows([baseline({ lab_date: value })], { dateFormat });
    expect((await lab('03/04/2025', 'MDY')).status).toBe(200);
    expect((await records({ records: [code.A] }))[0]!.lab_date).toBe('2025-03-04');
    expect((await lab('03/04/2025', 'DMY')).status).toBe(200);
    expect((await records({ records: [code.A] }))[0]!.lab_date).toBe('2025-04-03');
    expect((await lab('2025-05-06', 'DMY')).status).toBe(200);
    expect((await lab('13/45/2025', 'MDY')).error()).toContain('不是有效的日期');
    expect((await lab('3/4/25', 'MDY')).error()).toContain('年份应为四位');
    const surgery = await importRows(
      [{ record_id: code.A, redcap_event_name: ev['手术']!, op_at: '12/31/2025 09:30:00' }],
      { dateFormat: 'MDY' },
    );
    expect(surgery.status, surgery.text).toBe(200);
    const row = (await records({ records: [code.A], events: [ev['手术']!] }))[0]!;
    expect(row.op_at).toBe('2025-12-31 09:30:00');
  });
});

describe('REDCap API: a study without stages is a classic project', () => {
  it('is not longitudinal: no events, arms or mapping, no event column, events[] refused', async () => {
    await t.db.delete(crfStageCrfs).where(eq(crfStageCrfs.studyId, studyId));
    await t.db.delete(crfStages).where(eq(crfStages.studyId, studyId));
    expect((await call({ content: 'project' })).json()).toMatchObject({ is_longitudinal: 0 });
    for (const content of ['event', 'arm', 'formEventMapping']) {
      const res = await call({ content });
      expect([res.status, res.error()], content).toEqual([400, expect.stringContaining('不是纵向项目')]);
    }
    const rows = await records({ records: [code.A] });
    expect(Object.keys(rows[0]!)).not.toContain('redcap_event_name');
    expect((await call({ content: 'record', events: ['x_arm_1'] })).error()).toContain('参数 events');
    const csv = readCsv((await redcap({ token, content: 'record', format: 'csv', records: [code.B] })).text);
    expect(csv[0]).toMatchObject({ record_id: code.B, sex: '2' });
  });
});
