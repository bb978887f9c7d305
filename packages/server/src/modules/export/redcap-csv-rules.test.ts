import JSZip from 'jszip';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDictionary, checkRecords, parseDictionary } from '../../../../core/src/crf/test/redcap-rules.js';
import { openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import type { JobView } from '../jobs/job-queue.js';
import { waitForJob } from './export.service.js';

/**
 * The data export's REDCap files of the demo registry with data in every kind of item, judged with REDCap's own
 * rules (core's crf/test/redcap-rules.ts, from REDCap's source): the dictionary as REDCap's upload checks it, and
 * every cell of records.csv as REDCap's import checks it against that dictionary, its events, the instruments of
 * each event and the repeating ones.
 */
let t: TestApp;
let admin: string;
let studyId: number;
const crfIds: Record<string, number> = {};
const MOBILE = '13912345678';

async function enrol(subjectName: string, birth: string) {
  const res = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName,
    gender: 1,
    birth,
    diseaseCode: 'LSS',
    mobile: '13800000009',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.subjectRecordId as number;
}

async function save(subjectRecordId: number, crf: string, values: object) {
  const res = await t.call(admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId,
    crfId: crfIds[crf],
    version: 0,
    values,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

beforeAll(async () => {
  t = await createTestApp();
  const demo = await openDemoStudy(t);
  ({ admin, studyId } = demo);
  Object.assign(crfIds, demo.crfIds);
  const a = await enrol('张三', '1958-03-02');
  await enrol('王五', '1975-01-01');
  await save(a, '人口学资料', {
    birth: '1958-03-02',
    ethnic: 'han',
    insurance: ['urban', 'self'],
    phone: MOBILE,
    height: 170,
    weight: 65.5,
    smoke: '2',
    comorbid: ['htn', 'other'],
    comorbid_addition: '痛风',
    history_note: '腰痛三年, "卧床"\n夜间加重',
  });
  await save(a, '生命体征', {
    vs_at: '2026-01-05 08:30:00',
    sbp: 150,
    dbp: 90,
    temp: 37,
    vs_time: '09:15',
    vas_back: 6,
  });
  await save(a, '实验室检查', {
    lab_date: '2026-01-10',
    hb: 140,
    other_labs: [{ lab_item: '血糖', lab_value: 5.6, lab_unit: 'mmol/L', lab_at: '2026-01-10 07:00:00' }],
  });
  await save(a, '影像学检查', { img_date: '2026-01-11', cobb: 12, meyerding: '1', stenosis_level: ['L3/4', 'L4/5'] });
  await save(a, '手术记录', {
    op_at: '2026-01-20 09:00:00',
    approach: 'mis',
    op_levels: ['L4/5'],
    implants: [{ implant_name: '椎弓根螺钉', implant_qty: 4, implant_price: 1200 }],
    op_complication: ['none'],
  });
  await save(a, '术后随访', {
    fu_date: '2026-04-20',
    odi: 30,
    reoperation: '1',
    reop_date: '2026-05',
    fu_time: '10:00:00',
  });
  await save(a, '术后随访', { fu_date: '2026-07-20', odi: 20, reoperation: '0' });
});
afterAll(() => t.close());

async function exportZip(body: object): Promise<{ job: JobView; files: Map<string, string> }> {
  const res = await t.call(admin, 'POST', '/api/v3/business/search/export', { studyId, format: 'redcap', ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const job = await waitForJob(t.ctx, res.body.data.jobId as string, 60_000);
  expect(job?.state, JSON.stringify(job)).toBe('done');
  const download = await t.app.inject({
    method: 'GET',
    url: `/api/system/jobs/${job!.jobId}/result`,
    headers: { authorization: `Bearer ${admin}` },
  });
  expect(download.headers['content-disposition']).toMatch(/\.zip/);
  const zip = await JSZip.loadAsync(download.rawPayload);
  const files = new Map<string, string>();
  for (const name of Object.keys(zip.files)) {
    files.set(name, (await zip.file(name)!.async('string')).replace(/^\uFEFF/, ''));
  }
  return { job: job!, files };
}

const table = (csv: string) => Papa.parse<Record<string, string>>(csv, { header: true, skipEmptyLines: 'greedy' }).data;

/** REDCap's project as the zip describes it: events, the instruments of each, the repeating ones. */
function projectOf(files: Map<string, string>) {
  const events = table(files.get('events.csv') ?? '').map((e) => e.unique_event_name!);
  const formsOfEvent = new Map<string, Set<string>>();
  for (const m of table(files.get('instrument_event_mapping.csv') ?? '')) {
    formsOfEvent.set(m.unique_event_name!, (formsOfEvent.get(m.unique_event_name!) ?? new Set()).add(m.form!));
  }
  const repeating = new Set(table(files.get('repeating_instruments.csv') ?? '').map((r) => r.form_name!));
  return { events, formsOfEvent, repeating };
}

describe("the data export's REDCap files, by REDCap's rules", () => {
  it('the dictionary uploads and every cell of the records imports: names, choices, checkbox columns, validations, events', async () => {
    const { files } = await exportZip({ identifiers: true });
    expect([...files.keys()].sort()).toEqual([
      'README.txt',
      'choice_codes.csv',
      'data_dictionary.csv',
      'events.csv',
      'instrument_event_mapping.csv',
      'records.csv',
      'repeating_instruments.csv',
    ]);
    const dictionary = files.get('data_dictionary.csv')!;
    const records = files.get('records.csv')!;
    expect(checkDictionary(dictionary)).toEqual([]);
    const context = projectOf(files);
    expect(context.events.length).toBeGreaterThan(0);
    expect(checkRecords(records, dictionary, context)).toEqual([]);

    const rows = table(records);
    expect(rows.every((r) => r.redcap_event_name)).toBe(true);
    const fields = new Map(parseDictionary(dictionary).map((f) => [f.variable, f]));
    // A number of one decimal as REDCap's number_1dp asks; a partial date as text, which the dictionary declares.
    expect(fields.get('temp')!.validation).toBe('number_1dp');
    expect(rows.find((r) => r.temp)!.temp).toBe('37.0');
    expect(fields.get('reop_date')!.validation).toBe('');
    expect(rows.find((r) => r.reop_date)!.reop_date).toBe('2026-05');
    // The mobile is plain text there with a note, never North America's phone validation.
    expect(fields.get('phone')!.validation).toBe('');
    expect(rows.find((r) => r.phone)!.phone).toBe(MOBILE);
    expect(rows.find((r) => r.birth)!.birth).toBe('1958-03-02');
    // Codes REDCap refuses (L3/4) are legal ones in the dictionary and the columns, with the table of both.
    const stenosis = rows.find((r) => r.stenosis_level___l3_4 === '1')!;
    expect(stenosis.stenosis_level___l4_5).toBe('1');
    expect(table(files.get('choice_codes.csv')!)).toEqual(
      expect.arrayContaining([
        {
          variable: 'stenosis_level',
          field_label: '狭窄节段',
          code: 'L3/4',
          redcap_code: 'L3_4',
          choice_label: 'L3/4',
        },
      ]),
    );
    expect(files.get('README.txt')).toContain('data_dictionary.csv');
  });

  it('de-identified and date-shifted: the identifier items (联系电话, 出生日期) are not in the files', async () => {
    // The 导出 dialog lists them from the exportable forms.
    const exportable = await t.call(admin, 'GET', `/api/business/search/export/crfs?studyId=${studyId}`);
    const demographics = exportable.body.data.find((c: { title: string }) => c.title === '人口学资料');
    expect(demographics.identifierItems).toEqual(['出生日期', '联系电话']);
    const { files } = await exportZip({ dateShiftDays: 30 });
    const header = (files.get('records.csv') ?? '').split(/\r?\n/)[0]!.split(',');
    expect(header).not.toContain('phone');
    expect(header).not.toContain('birth');
    for (const [name, text] of files) {
      expect(text, name).not.toContain(MOBILE);
      expect(text, name).not.toContain('1958-03-02');
    }
    expect(checkRecords(files.get('records.csv')!, files.get('data_dictionary.csv')!, projectOf(files))).toEqual([]);
  });

  it('choice labels asked for: codes all the same, and the file and the job say so', async () => {
    const { job, files } = await exportZip({ labels: true });
    expect(job.message).toContain('REDCap 导入只接受选项编码');
    expect(files.get('README.txt')).toContain('导出时选择了“标签”');
    const rows = table(files.get('records.csv')!);
    expect(rows.find((r) => r.ethnic)!.ethnic).toBe('han');
    expect(checkRecords(files.get('records.csv')!, files.get('data_dictionary.csv')!, projectOf(files))).toEqual([]);
  });
});
