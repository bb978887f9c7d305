import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, crfDataRecords, subjectRecords, subjects } from '../../db/schema/index.js';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { PYTHON, runToolAsync, skipWithout, VENDOR_DIR } from '../../test/external-tool.js';
import { listenOnLoopback } from '../../test/raw-http.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/**
 * Stock PyCap 2.7 (../shared/vendor/pycap, unmodified) against the REDCap-compatible API over a real socket, as a
 * REDCap user's script calls it: `redcap.Project(url + '/redcap/api/', token)` and the methods docs/redcap-api.md
 * lists as supported, plus refused ones, which must raise PyCap's RedcapError rather than answer something else.
 */
const CLIENT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'pycap-client.py');
const withPandas = !skipWithout('python3') && !skipWithout('pandas');

type Row = Record<string, string>;
type Step = { ok?: any; error?: { type: string; message: any } };

let t: TestApp;
let studyId: number;
let code: string;
let steps: Record<string, Step>;

const ok = (name: string) => {
  const step = steps[name];
  expect(step?.error, `${name}: ${JSON.stringify(step)}`).toBeUndefined();
  return step!.ok;
};
/** A step PyCap refused with its RedcapError: REDCap's error text as PyCap read it. */
const redcapError = (name: string): string => {
  const step = steps[name];
  expect(step?.error?.type, `${name}: ${JSON.stringify(step)}`).toBe('RedcapError');
  const message = step!.error!.message;
  return typeof message === 'string' ? message : (message.error ?? message.bytes ?? JSON.stringify(message));
};

describe.skipIf(skipWithout('python3'))('stock PyCap against the REDCap API', () => {
  beforeAll(async () => {
    t = await createTestApp({ config: { dataDir: `/tmp/edc-pycap-test-${process.pid}` } });
    const demo = await openDemoStudy(t);
    studyId = demo.studyId;
    const enrolled = await enrolDemoPatient(t, demo.admin, studyId, { subjectName: '钱七' });
    code = enrolled.identificationCode;
    const saved = await t.call(demo.admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId: enrolled.subjectRecordId,
      crfId: demo.crfIds['人口学资料'],
      version: 0,
      values: { sex: '1', birth: '1960-05-01', weight: '65', height: '170', comorbid: ['htn'] },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const created = await t.call(demo.admin, 'POST', '/api/system/user/profile/apiToken', { studyId });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const port = await listenOnLoopback(t.app);
    const { stdout } = await runToolAsync(PYTHON, [CLIENT], {
      env: {
        PYTHONPATH: path.join(VENDOR_DIR, 'pycap'),
        REDCAP_URL: `http://127.0.0.1:${port}/redcap/api/`,
        REDCAP_TOKEN: created.body.data.token as string,
        REDCAP_RECORD: code,
      },
    });
    steps = JSON.parse(stdout) as Record<string, Step>;
  }, 180_000);
  afterAll(() => t?.close());

  it('reads the project: version, project information, metadata, field names and instruments', () => {
    expect(ok('export_version')).toBe('14.0.0');
    expect(ok('export_project_info')).toMatchObject({ project_id: studyId });
    const metadata = ok('export_metadata') as Row[];
    expect(metadata[0]!.field_name).toBe('record_id');
    expect(metadata.find((f) => f.field_name === 'lab_report')).toMatchObject({ field_type: 'file' });
    expect(ok('export_metadata_csv')).toMatch(/^field_name,form_name,/);
    expect(ok('export_metadata_xml')).toMatch(/^<\?xml version="1.0" encoding="UTF-8" \?>\n<records>/);
    expect((ok('export_metadata_fields') as Row[]).map((f) => f.field_name)).toEqual(['record_id', 'sex']);
    expect(ok('def_field')).toBe('record_id');
    const forms = ok('forms') as string[];
    const instruments = (ok('export_instruments') as Row[]).map((i) => i.instrument_name);
    expect([...instruments].sort()).toEqual(forms);
    const names = ok('export_field_names') as Row[];
    for (const form of forms) expect(names.map((n) => n.export_field_name)).toContain(`${form}_complete`);
    expect(ok('export_field_names_one')).toEqual([
      { original_field_name: 'sex', choice_value: '', export_field_name: 'sex' },
    ]);
  });

  it('exports records with its defaults (every <form>_complete asked for), by record, field, form, label and format', () => {
    const forms = ok('forms') as string[];
    const all = ok('export_records') as Row[];
    const mine = all.find((r) => r.record_id === code && r.sex === '1')!;
    expect(mine).toMatchObject({ weight: '65', comorbid___htn: '1' });
    for (const form of forms) expect(Object.keys(mine)).toContain(`${form}_complete`);
    expect((ok('export_records_one') as Row[]).every((r) => r.record_id === code)).toBe(true);
    const fields = ok('export_records_fields') as Row[];
    expect(Object.keys(fields[0]!).filter((c) => !c.startsWith('redcap_'))).toEqual(['record_id', 'sex', 'weight']);
    const demographics = (ok('export_metadata') as Row[]).find((f) => f.field_name === 'sex')!.form_name!;
    expect((ok('export_records_forms') as Row[]).find((r) => r.sex === '1')).toMatchObject({
      [`${demographics}_complete`]: '0',
    });
    expect((ok('export_records_label') as Row[]).find((r) => r.sex)).toMatchObject({ sex: '男' });
    expect(ok('export_records_csv')).toMatch(/^record_id,/);
    expect(ok('export_records_xml')).toMatch(/^<\?xml version="1.0" encoding="UTF-8" \?>\n<records>/);
    expect(ok('export_records_eav')).toContainEqual(expect.objectContaining({ record: code, field_name: 'sex' }));
    const filtered = ok('export_records_filter') as Row[];
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.every((r) => r.sex === '1')).toBe(true);
    expect(redcapError('export_records_bad_field')).toContain('no_such_field');
  });

  it("sees the study's stages as events: is_longitudinal, events, the arm and the instrument–event mapping", () => {
    expect(ok('is_longitudinal')).toBe(true);
    const events = ok('export_events') as Row[];
    expect(events.map((e) => e.event_name)).toEqual(['基线', '手术', '术后随访']);
    expect(ok('export_arms')).toEqual([{ arm_num: 1, name: 'Arm 1' }]);
    const mapping = ok('export_instrument_event_mappings') as Row[];
    expect(mapping.map((m) => m.form).sort()).toEqual(ok('forms'));
    const rows = ok('export_records') as Row[];
    expect(rows.every((r) => events.some((e) => e.unique_event_name === r.redcap_event_name))).toBe(true);
  });

  it.skipIf(!withPandas)('exports DataFrames', () => {
    // A longitudinal project's records are indexed by record and event, as PyCap indexes REDCap's.
    expect(ok('export_records_df')).toMatchObject({ dataframe: true, index: ['record_id', 'redcap_event_name'] });
    expect(ok('export_metadata_df')).toMatchObject({ dataframe: true, index: ['field_name'] });
    expect(ok('export_field_names_df')).toMatchObject({ dataframe: true, index: ['original_field_name'] });
  });

  it('imports records as JSON, CSV (and a DataFrame): the count, and the value written, with its audit row', async () => {
    expect(ok('import_records_json')).toEqual({ answer: { count: 1 }, weight_after: '71' });
    expect(ok('import_records_csv')).toEqual({ answer: { count: 1 }, weight_after: '72' });
    if (withPandas) expect(ok('import_records_df')).toEqual({ answer: { count: 1 }, weight_after: '73' });
    expect(ok('import_records_return_formats')).toEqual({
      csv: '1',
      xml: '<?xml version="1.0" encoding="UTF-8" ?><count>1</count>',
      ids: [code],
      nothing: [{}],
    });
    const trail = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'item.update'), eq(auditEvents.itemName, 'weight')))
      .orderBy(asc(auditEvents.id));
    const imported = trail.filter((a) => a.reason === 'API导入').map((a) => a.newValue);
    expect(imported).toEqual(withPandas ? [71, 72, 73] : [71, 72]);
  });

  it('an invalid value raises RedcapError with REDCap\'s "record","field","value","message" line; nothing is written', () => {
    expect(redcapError('import_records_invalid')).toMatch(new RegExp(`^"${code}","sex","9","[^"]+"$`));
    expect(ok('weight_after_invalid')).toBe(withPandas ? '73' : '72');
  });

  it("缺失原因 (issue 37): a field imported as one of the study's codes is marked with it and exports as the code", async () => {
    expect(ok('import_records_missing_code')).toEqual({ answer: { count: 1 }, height_after: 'ND' });
    const [row] = await t.db
      .select({ missing: crfDataRecords.missing, values: crfDataRecords.values })
      .from(crfDataRecords)
      .innerJoin(subjectRecords, eq(subjectRecords.id, crfDataRecords.subjectRecordId))
      .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
      .where(and(eq(subjects.identificationCode, code), eq(crfDataRecords.missing, { height: 'ND' })));
    expect(row?.values).not.toHaveProperty('height');
  });

  it('imports, exports and deletes the file of a file field', () => {
    expect(ok('import_file')).toEqual([{}]);
    const [content, map] = ok('export_file') as [{ bytes: string }, Row];
    expect(content.bytes).toBe('化验单 Hb 135 g/L\n');
    expect(map.name).toBe('report.txt');
    expect(ok('delete_file')).toEqual([{}]);
    // No file left: REDCap's XML error, which PyCap raises instead of handing it over as the file.
    expect(redcapError('export_file_deleted')).toContain('<error>');
    expect(steps.export_file_not_a_file_field!.error!.type).toBe('ValueError');
  });

  it('what we do not offer raises RedcapError; export_pdf gets a REDCap error, never bytes labelled PDF', () => {
    expect(redcapError('export_users')).toContain('content=user');
    expect(redcapError('delete_records')).toContain('content=record');
    expect(redcapError('import_metadata')).toContain('content=metadata');
    // generate_next_record_name asks for CSV: the error begins with REDCap's "ERROR: ".
    expect(redcapError('generate_next_record_name')).toMatch(/^ERROR: /);
    // PyCap reads export_pdf's answer as bytes without looking for an error: the bytes are REDCap's JSON error.
    const [content, map] = ok('export_pdf') as [{ bytes: string }, Row];
    expect(JSON.parse(content.bytes)).toEqual({ error: expect.stringContaining('content=pdf') });
    expect(map.name).toBeUndefined();
  });
});
