import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { XMLParser } from 'fast-xml-parser';
import { importRedcapDictionary, exportRedcapDictionary } from '@ecrf/core/interop';
import {
  apiTokens,
  auditEvents,
  crfVersions,
  operLogs,
  storedFiles,
  studyPersonnel,
  users,
} from '../../db/schema/index.js';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { readCsv } from './redcap-csv.js';

let t: TestApp;
let admin: string;
let studyId: number;
let crfIds: Record<string, number>;
let code: string;
let token: string;

/** A REDCap client as REDCap's API documentation describes one: a form-encoded POST with the token in it. */
async function redcap(params: Record<string, string | string[]>) {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (Array.isArray(value)) value.forEach((v, i) => form.append(`${key}[${i}]`, v));
    else form.append(key, value);
  }
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/redcap',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: form.toString(),
  });
  return answerOf(res);
}

/** An answer, and its REDCap error in whichever of REDCap's error formats it came. */
function answerOf(res: { statusCode: number; headers: Record<string, unknown>; body: string; json: () => any }) {
  const type = String(res.headers['content-type']);
  return {
    status: res.statusCode,
    type,
    headers: res.headers,
    text: res.body,
    json: () => res.json(),
    error: (): string => {
      if (type.includes('json')) return res.json().error;
      if (type.includes('xml')) return (parseXml(res.body).hash as Row).error!;
      expect(res.body.startsWith('ERROR: '), res.body).toBe(true);
      return res.body.slice('ERROR: '.length);
    },
  };
}

/** A multipart call as REDCap's clients send a file: the parameters first, then the part named `file`. */
async function redcapMultipart(params: Record<string, string>, file?: { name: string; bytes: Buffer }) {
  const boundary = '----redcap-test-boundary';
  const parts: Buffer[] = [];
  for (const [key, value] of Object.entries(params)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${key}"\r\n\r\n${value}\r\n`));
  }
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      ),
      file.bytes,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/redcap',
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload: Buffer.concat(parts),
  });
  return { status: res.statusCode, headers: res.headers, text: res.body, raw: res.rawPayload };
}

/** An independent XML parser reads the API's XML back: every element as text, rows always a list. */
function parseXml(xml: string, rowTag = 'item') {
  return new XMLParser({ parseTagValue: false, ignoreDeclaration: true, isArray: (name) => name === rowTag }).parse(
    xml,
  ) as Record<string, unknown>;
}

type Row = Record<string, string>;
const exportJson = async (extra: Record<string, string | string[]> = {}, key = token) => {
  const res = await redcap({ token: key, content: 'record', format: 'json', type: 'flat', ...extra });
  expect(res.status, res.text).toBe(200);
  return res.json() as Row[];
};

async function createToken(bearer: string, study = studyId) {
  return t.call(bearer, 'POST', '/api/system/user/profile/apiToken', { studyId: study });
}

beforeAll(async () => {
  t = await createTestApp({ config: { dataDir: `/tmp/edc-redcap-test-${process.pid}` } });
  ({ admin, studyId, crfIds } = await openDemoStudy(t));
  const enrolled = await enrolDemoPatient(t, admin, studyId, { subjectName: '赵六' });
  code = enrolled.identificationCode;
  const subjectRecordId = enrolled.subjectRecordId;
  const save = async (crf: string, values: object, extra: object = {}) => {
    const res = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId,
      crfId: crfIds[crf],
      version: 0,
      values,
      ...extra,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };
  await save('人口学资料', { sex: '1', birth: '1960-05-01', weight: '65', height: '170', comorbid: ['htn', 'dm'] });
  await save('术后随访', { fu_date: '2026-01-05', odi: '30' });
  await save('术后随访', { fu_date: '2026-04-05', odi: '20' });
  await save('手术记录', { implants: [{ implant_name: '椎弓根螺钉', implant_qty: '4' }] });
  await save('生命体征', { sbp: '130', dbp: '80', hr: '70' }, { submit: true });
  const created = await createToken(admin);
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  token = created.body.data.token;
});
afterAll(() => t.close());

describe('API tokens', () => {
  it('is shown once as 32 hex characters, stored only as its hash, listed and audited', async () => {
    expect(token).toMatch(/^[0-9A-F]{32}$/);
    const [row] = await t.db.select().from(apiTokens).where(eq(apiTokens.studyId, studyId));
    expect(row!.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(token);
    const listed = (await t.call(admin, 'GET', '/api/system/user/profile/apiToken')).body.data;
    expect(listed[0]).toMatchObject({ studyId, id: row!.id });
    expect(JSON.stringify(listed)).not.toContain(token);
    const trail = await t.db.select().from(auditEvents).where(eq(auditEvents.action, 'api_token.create'));
    expect(trail).toHaveLength(1);
    expect(JSON.stringify(trail)).not.toContain(token);
    expect((await createToken(admin)).status).toBe(409);
  });
});

describe('REDCap API: records', () => {
  it('exports flat records keyed by the patient code, checkboxes as field___code, stages as events', async () => {
    const rows = await exportJson();
    const mine = rows.filter((r) => r.record_id === code);
    const baseline = mine.find((r) => r.redcap_repeat_instrument === '' && r.sex === '1')!;
    expect(baseline).toBeDefined();
    expect(baseline.redcap_event_name).toMatch(/_arm_1$/);
    expect(baseline).toMatchObject({ weight: '65', comorbid___htn: '1', comorbid___dm: '1', comorbid___chd: '0' });
    expect(Object.keys(baseline)[0]).toBe('record_id');
    const labelled = (await exportJson({ rawOrLabel: 'label' })).find((r) => r.record_id === code && r.sex)!;
    expect(labelled).toMatchObject({ sex: '男', comorbid___htn: 'Checked', comorbid___chd: 'Unchecked' });
  });

  it('exports repeatable forms and list-group rows as repeating instruments with instances', async () => {
    const instruments = (await redcap({ token, content: 'instrument', format: 'json' })).json() as Row[];
    const followUp = instruments.find((i) => i.instrument_label === '术后随访')!.instrument_name;
    const rows = (await exportJson({ records: [code] })).filter((r) => r.redcap_repeat_instrument === followUp);
    expect(rows.map((r) => [r.redcap_repeat_instance, r.odi])).toEqual([
      ['1', '30'],
      ['2', '20'],
    ]);
    const implantRows = (await exportJson({ records: [code] })).filter((r) => r.implant_name);
    expect(implantRows).toHaveLength(1);
    expect(implantRows[0]).toMatchObject({ redcap_repeat_instance: '1', implant_qty: '4' });
  });

  it('a client exports, changes a value, re-imports and exports again: the change is there with its audit row', async () => {
    const rows = await exportJson({ records: [code] });
    const baseline = rows.find((r) => r.sex === '1')!;
    const changed = { ...baseline, weight: '72', comorbid___chd: '1' };
    const imported = await redcap({
      token,
      content: 'record',
      action: 'import',
      format: 'json',
      data: JSON.stringify([changed]),
    });
    expect(imported.status, imported.text).toBe(200);
    expect(imported.json()).toEqual({ count: 1 });
    const again = (await exportJson({ records: [code] })).find((r) => r.sex === '1')!;
    expect(again).toMatchObject({ weight: '72', comorbid___chd: '1', comorbid___htn: '1' });
    const trail = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'item.update'), eq(auditEvents.itemName, 'weight')))
      .orderBy(asc(auditEvents.id));
    expect(trail.at(-1)).toMatchObject({ oldValue: 65, newValue: 72, reason: 'API导入' });
    // Importing the same rows again changes nothing and writes no audit row.
    const before = (await t.db.select().from(auditEvents)).length;
    const same = await redcap({
      token,
      content: 'record',
      action: 'import',
      format: 'json',
      data: JSON.stringify(await exportJson()),
    });
    expect(same.status, same.text).toBe(200);
    expect((await t.db.select().from(auditEvents)).length).toBe(before);
  });

  it('CSV both ways: a header row, read back and imported', async () => {
    const res = await redcap({ token, content: 'record', format: 'csv', records: [code] });
    expect(res.type).toContain('text/csv');
    expect(res.text.split('\n')[0]!.startsWith('record_id,')).toBe(true);
    const rows = readCsv(res.text);
    const baseline = rows.find((r) => r.sex === '1')!;
    const header = Object.keys(baseline);
    const line = (r: Row) =>
      header.map((h) => (/[",\n]/.test(r[h]!) ? `"${r[h]!.replace(/"/g, '""')}"` : r[h])).join(',');
    const data = `${header.join(',')}\n${line({ ...baseline, height: '171' })}\n`;
    const imported = await redcap({ token, content: 'record', action: 'import', format: 'csv', data });
    expect(imported.status, imported.text).toBe(200);
    // The count alone, as REDCap answers an import in CSV.
    expect(imported.text).toBe('1');
    expect((await exportJson({ records: [code] })).find((r) => r.sex === '1')!.height).toBe('171');
  });

  it('an import is all or nothing and the engine judges it: one bad row leaves every value as it was', async () => {
    const baseline = (await exportJson({ records: [code] })).find((r) => r.sex === '1')!;
    const followUp = (await exportJson({ records: [code] })).find((r) => r.odi === '30')!;
    const res = await redcap({
      token,
      content: 'record',
      action: 'import',
      format: 'json',
      data: JSON.stringify([
        { ...baseline, weight: '80' },
        { ...followUp, odi: 'abc' },
      ]),
    });
    expect(res.status).toBe(400);
    expect(res.error()).toContain('"odi","abc"');
    expect((await exportJson({ records: [code] })).find((r) => r.sex === '1')!.weight).toBe('72');
  });

  it("changes to a submitted form need the caller's reason, as on the form page", async () => {
    const vitals = (await exportJson({ records: [code] })).find((r) => r.sbp === '130')!;
    const data = JSON.stringify([{ ...vitals, hr: '75' }]);
    const refused = await redcap({ token, content: 'record', action: 'import', data });
    expect(refused.status).toBe(400);
    expect(refused.error()).toContain('reason');
    const accepted = await redcap({ token, content: 'record', action: 'import', data, reason: '病历核对后更正' });
    expect(accepted.status, accepted.text).toBe(200);
    const rows = await t.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.itemName, 'hr'))
      .orderBy(asc(auditEvents.id));
    expect(rows.at(-1)).toMatchObject({ newValue: 75, reason: 'API导入：病历核对后更正' });
  });

  it('EAV: one row per value, a checkbox one per chosen code', async () => {
    const eav = (await exportJson({ type: 'eav', records: [code] })) as Row[];
    expect(eav).toContainEqual(expect.objectContaining({ record: code, field_name: 'comorbid', value: 'htn' }));
    expect(eav.some((r) => r.field_name === 'comorbid___chd')).toBe(false);
  });
});

describe('REDCap API: metadata and project', () => {
  it('exports the data dictionary that the REDCap dictionary importer reads back into the same forms', async () => {
    const res = await redcap({ token, content: 'metadata', format: 'csv' });
    expect(res.status, res.text).toBe(200);
    expect(res.text.split('\n')[0]).toMatch(/^field_name,form_name,section_header,field_type,field_label/);
    const fromApi = importRedcapDictionary(res.text);
    expect(fromApi.definitions.length).toBeGreaterThan(0);
    const versions = await t.db.select().from(crfVersions);
    const definitions = Object.values(crfIds).map(
      (id) => versions.find((v) => v.crfId === id && v.version === 1)!.definition as never,
    );
    const fromFile = importRedcapDictionary(exportRedcapDictionary(definitions, { recordId: 'record_id' }).csv);
    expect(fromApi.definitions).toEqual(fromFile.definitions);
    const json = (await redcap({ token, content: 'metadata', format: 'json' })).json() as Row[];
    expect(json[0]).toMatchObject({ field_name: 'record_id', field_type: 'text' });
    expect(json.find((f) => f.field_name === 'comorbid')).toMatchObject({ field_type: 'checkbox' });
  });

  it('answers instruments, project information, export field names and the version', async () => {
    const project = (await redcap({ token, content: 'project', format: 'json' })).json();
    expect(project).toMatchObject({ project_id: studyId, is_longitudinal: 1, has_repeating_instruments_or_events: 1 });
    const names = (await redcap({ token, content: 'exportFieldNames', format: 'json' })).json() as Row[];
    expect(names).toContainEqual({
      original_field_name: 'comorbid',
      choice_value: 'htn',
      export_field_name: 'comorbid___htn',
    });
    expect(names).toContainEqual({ original_field_name: 'weight', choice_value: '', export_field_name: 'weight' });
    const version = await redcap({ token, content: 'version' });
    expect(version.text).toMatch(/^\d+\.\d+\.\d+$/);
    const csv = await redcap({ token, content: 'instrument', format: 'csv' });
    expect(csv.text.split('\n')[0]).toBe('instrument_name,instrument_label');
  });
});

describe('REDCap API: XML', () => {
  it('records flat as <records><item>, read back by an XML parser, changed and imported as XML', async () => {
    const res = await redcap({ token, content: 'record', format: 'xml', records: [code] });
    expect(res.status, res.text).toBe(200);
    expect(res.type).toContain('text/xml');
    expect(res.text.startsWith('<?xml version="1.0" encoding="UTF-8" ?>')).toBe(true);
    const items = (parseXml(res.text).records as { item: Row[] }).item;
    expect(items).toEqual(await exportJson({ records: [code] }));
    const baseline = items.find((r) => r.sex === '1')!;
    const body = Object.entries({ ...baseline, weight: '73.5', history_note: 'a < b & "c"' })
      .map(([k, v]) => `<${k}>${v.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</${k}>`)
      .join('');
    const data = `<?xml version="1.0" encoding="UTF-8" ?>\n<records>\n<item>${body}</item>\n</records>`;
    const imported = await redcap({ token, content: 'record', action: 'import', format: 'xml', data });
    expect(imported.status, imported.text).toBe(200);
    expect(parseXml(imported.text)).toEqual({ count: '1' });
    const again = (await exportJson({ records: [code] })).find((r) => r.sex === '1')!;
    expect(again).toMatchObject({ weight: '73.5', history_note: 'a < b & "c"' });
    const trail = await t.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.itemName, 'history_note'))
      .orderBy(asc(auditEvents.id));
    expect(trail.at(-1)).toMatchObject({ reason: 'API导入' });
    // The same data again: its bmi, calculated from the weight before, is no longer the form's (refused, never
    // replaced unseen); without it the rows import as they are.
    const stale = await redcap({ token, content: 'record', format: 'xml', returnFormat: 'json', data });
    expect(stale.error()).toMatch(/"bmi","24\.6","计算字段/);
    const fresh = data.replace(/<bmi>[^<]*<\/bmi>/, '');
    const ids = await redcap({ token, content: 'record', format: 'xml', data: fresh, returnContent: 'ids' });
    expect(parseXml(ids.text, 'id')).toEqual({ ids: { id: [code] } });
  });

  it('EAV as XML, and the other contents in REDCap shapes', async () => {
    const eav = await redcap({ token, content: 'record', format: 'xml', type: 'eav', records: [code] });
    const rows = (parseXml(eav.text).records as { item: Row[] }).item;
    expect(rows).toContainEqual(expect.objectContaining({ record: code, field_name: 'comorbid', value: 'htn' }));
    expect(rows).toEqual(await exportJson({ type: 'eav', records: [code] }));
    const metadata = parseXml((await redcap({ token, content: 'metadata', format: 'xml' })).text);
    expect((metadata.records as { item: Row[] }).item[0]).toMatchObject({
      field_name: 'record_id',
      field_type: 'text',
    });
    const instruments = parseXml((await redcap({ token, content: 'instrument', format: 'xml' })).text, 'Instrument');
    expect((instruments.Instruments as { Instrument: Row[] }).Instrument).toContainEqual(
      expect.objectContaining({ instrument_label: '术后随访' }),
    );
    const project = parseXml((await redcap({ token, content: 'project', format: 'xml' })).text);
    expect(project.project).toMatchObject({ project_id: String(studyId), is_longitudinal: '1' });
    const names = parseXml((await redcap({ token, content: 'exportFieldNames', format: 'xml' })).text, 'field');
    expect((names.fields as { field: Row[] }).field).toContainEqual({
      original_field_name: 'comorbid',
      choice_value: 'htn',
      export_field_name: 'comorbid___htn',
    });
  });

  it('refuses XML that is not well-formed or declares a document type, answering in XML', async () => {
    const bad = await redcap({ token, content: 'record', action: 'import', format: 'xml', data: '<records><item>' });
    expect(bad.status).toBe(400);
    expect((parseXml(bad.text).hash as Row).error).toContain('XML');
    const doctype = await redcap({
      token,
      content: 'record',
      action: 'import',
      format: 'xml',
      data: '<!DOCTYPE r [<!ENTITY a "x">]><records><item><record_id>&a;</record_id></item></records>',
    });
    expect(doctype.status).toBe(400);
    expect((parseXml(doctype.text).hash as Row).error).toContain('DOCTYPE');
  });
});

describe('REDCap API: EAV import', () => {
  it('an EAV export, changed and imported as EAV: the same values as a flat import, checkboxes by code', async () => {
    const eav = await exportJson({ type: 'eav', records: [code] });
    const changed = eav.map((r) => (r.field_name === 'height' ? { ...r, value: '172' } : r));
    const event = eav.find((r) => r.field_name === 'comorbid')!.redcap_event_name;
    changed.push({
      record: code,
      redcap_event_name: event!,
      redcap_repeat_instrument: '',
      redcap_repeat_instance: '',
      field_name: 'comorbid',
      value: 'op',
    });
    const imported = await redcap({
      token,
      content: 'record',
      action: 'import',
      type: 'eav',
      data: JSON.stringify(changed),
      returnFormat: 'json',
    });
    expect(imported.status, imported.text).toBe(200);
    expect(imported.json()).toEqual({ count: 1 });
    const flat = (await exportJson({ records: [code] })).find((r) => r.sex === '1')!;
    expect(flat).toMatchObject({ height: '172', comorbid___op: '1', comorbid___htn: '1' });
    const trail = await t.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.itemName, 'height'))
      .orderBy(asc(auditEvents.id));
    expect(trail.at(-1)).toMatchObject({ newValue: 172, reason: 'API导入' });
    // The whole EAV export again: nothing changes, no audit row.
    const before = (await t.db.select().from(auditEvents)).length;
    const same = await redcap({
      token,
      content: 'record',
      action: 'import',
      type: 'eav',
      format: 'csv',
      data: (await redcap({ token, content: 'record', type: 'eav', format: 'csv', records: [code] })).text,
    });
    expect(same.status, same.text).toBe(200);
    expect((await t.db.select().from(auditEvents)).length).toBe(before);
  });

  it('EAV rows name a checkbox by field and code, or by its export column with 1/0; a wrong code is refused', async () => {
    const event = (await exportJson({ type: 'eav', records: [code] })).find(
      (r) => r.field_name === 'comorbid',
    )!.redcap_event_name!;
    const row = (field_name: string, value: string) => ({ record: code, redcap_event_name: event, field_name, value });
    const off = await redcap({
      token,
      content: 'record',
      action: 'import',
      type: 'eav',
      data: JSON.stringify([row('comorbid___op', '0')]),
    });
    expect(off.status, off.text).toBe(200);
    expect((await exportJson({ records: [code] })).find((r) => r.sex === '1')!.comorbid___op).toBe('0');
    const wrong = await redcap({
      token,
      content: 'record',
      action: 'import',
      type: 'eav',
      data: JSON.stringify([row('comorbid', 'nope')]),
    });
    expect(wrong.status).toBe(400);
    expect(wrong.error()).toContain('nope');
  });
});

describe('REDCap API: filterLogic', () => {
  let other: string;
  beforeAll(async () => {
    const enrolled = await enrolDemoPatient(t, admin, studyId, { subjectName: '钱七', gender: 0, birth: '1970-03-02' });
    other = enrolled.identificationCode;
    const saved = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId: enrolled.subjectRecordId,
      crfId: crfIds['人口学资料'],
      version: 0,
      values: { sex: '2', birth: '1970-03-02', weight: '50', height: '160', comorbid: ['dm'] },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  });

  const selected = async (filterLogic: string, extra: Record<string, string | string[]> = {}) =>
    [...new Set((await exportJson({ filterLogic, ...extra })).map((r) => r.record_id))].sort();

  it('selects records by REDCap logic: comparisons, and/or, checkbox codes, blanks', async () => {
    expect(await selected("[weight] > 60 and [sex] = '1'")).toEqual([code]);
    expect(await selected("[sex] = '2' or [weight] < 55")).toEqual([other]);
    expect(await selected('[comorbid(dm)] = 1')).toEqual([code, other].sort());
    expect(await selected("[comorbid(htn)] = '1' and [comorbid(dm)] = '0'")).toEqual([]);
    expect(await selected("[history_note] <> ''")).toEqual([code]);
    // REDCap's reading of a blank number: no comparison holds.
    expect(await selected('[hb] < 1000')).toEqual([]);
    const csv = await redcap({ token, content: 'record', format: 'csv', filterLogic: "[sex] = '2'" });
    expect(readCsv(csv.text).map((r) => r.record_id)).toEqual([other]);
  });

  it('on a repeating form, the rows whose instance matches', async () => {
    const rows = await exportJson({ filterLogic: '[odi] > 25' });
    expect(rows.map((r) => [r.record_id, r.redcap_repeat_instance, r.odi])).toEqual([[code, '1', '30']]);
  });

  it('refuses logic it cannot translate, with the reason, REDCap-style', async () => {
    for (const logic of [
      '[event_1_arm_1][weight] > 60',
      "[user-name] = 'x'",
      'foo([weight]) > 1',
      '[no_such] = 1',
      '[weight] >',
    ]) {
      const res = await redcap({ token, content: 'record', filterLogic: logic });
      expect(res.status, logic).toBe(400);
      expect(res.error(), logic).toContain('filterLogic');
    }
  });
});

describe('REDCap API: file fields', () => {
  const report = Buffer.from('化验单 2026-01-05\nHb 135 g/L\n');
  const fileParams = (action: string, extra: Record<string, string> = {}, key = token) => ({
    token: key,
    content: 'file',
    action,
    record: code,
    field: 'lab_report',
    ...extra,
  });

  it('imports a file into a record field, exports it with its name, deletes it: each change audited', async () => {
    const imported = await redcapMultipart(fileParams('import'), { name: 'report.txt', bytes: report });
    expect(imported.status, imported.text).toBe(200);
    const [stored] = await t.db.select().from(storedFiles).where(eq(storedFiles.fileName, 'report.txt'));
    expect(stored).toMatchObject({ studyId, size: report.length });
    const flat = (await exportJson({ records: [code], fields: ['lab_report'] })).find((r) => r.lab_report);
    expect(flat!.lab_report).toBe('[document]');
    const trail = await t.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.itemName, 'lab_report'))
      .orderBy(asc(auditEvents.id));
    expect(trail.at(-1)).toMatchObject({ action: 'item.update', newValue: stored!.fileKey, reason: 'API导入' });

    const exported = await redcapMultipart(fileParams('export'));
    expect(exported.status, exported.text).toBe(200);
    expect(exported.raw.equals(report)).toBe(true);
    expect(String(exported.headers['content-type'])).toContain('name="report.txt"');
    // The form-encoded call exports it too.
    const plain = await redcap(fileParams('export'));
    expect(plain.status).toBe(200);

    const deleted = await redcap(fileParams('delete'));
    expect(deleted.status, deleted.text).toBe(200);
    const after = await t.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.itemName, 'lab_report'))
      .orderBy(asc(auditEvents.id));
    expect(after.length).toBe(trail.length + 1);
    expect(after.at(-1)).toMatchObject({ oldValue: stored!.fileKey, reason: 'API导入' });
    // A failed download is an error a client does not save as the file: no attachment, REDCap's XML error.
    const gone = await redcap(fileParams('export'));
    expect(gone.status).toBe(400);
    expect(gone.type).toContain('text/xml');
    expect(gone.headers['content-disposition']).toBeUndefined();
    expect(gone.error()).toContain('没有文件');
  });

  it('refuses what is not a single-file field, a file of a refused type, and a file with no parameters before it', async () => {
    expect((await redcap(fileParams('export', { field: 'weight' }))).error()).toContain('不是文件字段');
    expect((await redcap(fileParams('export', { field: 'xray' }))).status).toBe(400);
    const before = (await t.db.select().from(storedFiles)).length;
    const exe = await redcapMultipart(fileParams('import'), {
      name: 'x.exe',
      bytes: Buffer.from('MZ\u0090\u0000\u0003'),
    });
    expect(exe.status).toBe(400);
    const noFile = await redcapMultipart(fileParams('import'));
    expect(noFile.status).toBe(400);
    expect((await t.db.select().from(storedFiles)).length).toBe(before);
  });

  it('a member who may only view the form reads its file but may not change it; one without view sees no field', async () => {
    await redcapMultipart(fileParams('import'), { name: 'again.txt', bytes: report });
    const viewer = await addStudyMember(t, admin, studyId, '13700000003', {
      permissions: [`crf:${crfIds['实验室检查']}:view`],
    });
    const viewerToken = (await createToken(viewer)).body.data.token as string;
    expect((await redcap(fileParams('export', {}, viewerToken))).status).toBe(200);
    const before = (await t.db.select().from(storedFiles)).length;
    const refused = await redcapMultipart(fileParams('import', {}, viewerToken), { name: 'x.txt', bytes: report });
    expect(refused.status).toBe(403);
    expect((await redcap(fileParams('delete', {}, viewerToken))).status).toBe(403);
    expect((await t.db.select().from(storedFiles)).length).toBe(before);

    const outsider = await addStudyMember(t, admin, studyId, '13700000004', {
      permissions: [`crf:${crfIds['生命体征']}:view`],
    });
    const outsiderToken = (await createToken(outsider)).body.data.token as string;
    const hidden = await redcap(fileParams('export', {}, outsiderToken));
    expect(hidden.status).toBe(400);
    expect(hidden.error()).toContain('不存在或无权查看');
    // Nor its values any other way: XML, EAV, filterLogic.
    const xml = await redcap({ token: outsiderToken, content: 'record', format: 'xml' });
    expect(xml.text).not.toContain('<weight>');
    expect(xml.text).not.toContain('<lab_report>');
    const eav = await exportJson({ type: 'eav' }, outsiderToken);
    expect(eav.some((r) => r.field_name === 'weight' || r.field_name === 'lab_report')).toBe(false);
    expect(eav.some((r) => r.field_name === 'sbp')).toBe(true);
    const probe = await redcap({ token: outsiderToken, content: 'record', filterLogic: '[weight] > 60' });
    expect(probe.status).toBe(400);
  });
});

describe('REDCap API: as REDCap clients call it', () => {
  const formsOf = async () =>
    ((await redcap({ token, content: 'instrument', format: 'json' })).json() as Row[]).map((i) => i.instrument_name!);

  it('a call with data is an import without action=import; metadata with data is refused, never exported', async () => {
    const baseline = (await exportJson({ records: [code] })).find((r) => r.sex === '1')!;
    const data = JSON.stringify([{ ...baseline, weight: '68' }]);
    const imported = await redcap({ token, content: 'record', format: 'json', data });
    expect(imported.status, imported.text).toBe(200);
    expect(imported.json()).toEqual({ count: 1 });
    expect((await exportJson({ records: [code] })).find((r) => r.sex === '1')!.weight).toBe('68');
    const contradicting = await redcap({ token, content: 'record', action: 'export', format: 'json', data });
    expect(contradicting.status).toBe(400);
    expect(contradicting.error()).toContain('action=export');
    const metadata = await redcap({ token, content: 'metadata', format: 'json', data: '[]' });
    expect(metadata.status).toBe(400);
    expect(metadata.error()).toContain('content=metadata');
    expect((await redcap({ token, content: 'project', format: 'json', data: '{}' })).status).toBe(400);
  });

  it('an import answers in returnFormat (else format, else XML) with the count alone, ids or nothing', async () => {
    const baseline = (await exportJson({ records: [code] })).find((r) => r.sex === '1')!;
    const data = JSON.stringify([baseline]);
    const call = (extra: Record<string, string>) =>
      redcap({ token, content: 'record', format: 'json', data, overwriteBehavior: 'normal', ...extra });
    expect((await call({ returnFormat: 'json' })).json()).toEqual({ count: 1 });
    expect((await call({ returnFormat: 'csv' })).text).toBe('1');
    expect((await call({ returnFormat: 'xml' })).text).toBe('<?xml version="1.0" encoding="UTF-8" ?><count>1</count>');
    expect((await call({ returnFormat: 'json', returnContent: 'ids' })).json()).toEqual([code]);
    const nothing = await call({ returnFormat: 'json', returnContent: 'nothing' });
    expect([nothing.status, nothing.text]).toEqual([200, '']);
    // What PyCap sends with every import is accepted; what we cannot carry out is refused, not ignored.
    expect((await call({ dateFormat: 'YMD', forceAutoNumber: 'False' })).status).toBe(200);
    expect((await call({ dateFormat: 'DMY' })).status).toBe(200);
    expect((await call({ dateFormat: 'YDM' })).error()).toContain('dateFormat');
    expect((await call({ forceAutoNumber: 'True' })).error()).toContain('forceAutoNumber');
    expect((await call({ returnContent: 'auto_ids' })).error()).toContain('returnContent');
  });

  it('refused values are listed as REDCap lists them, one "record","field","value","message" line each', async () => {
    const rows = await exportJson({ records: [code] });
    const baseline = rows.find((r) => r.sex === '1')!;
    const followUp = rows.find((r) => r.odi === '30')!;
    const data = JSON.stringify([
      { ...baseline, sex: '9', comorbid___htn: '2' },
      { ...followUp, odi: 'abc' },
    ]);
    const res = await redcap({ token, content: 'record', format: 'json', returnFormat: 'csv', data });
    expect(res.status).toBe(400);
    const lines = res.error().split('\n');
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^"${code}","sex","9","[^"]+"$`)));
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^"${code}","comorbid___htn","2","[^"]+"$`)));
    // The engine's verdict comes the same way, once the values themselves pass.
    const engine = await redcap({
      token,
      content: 'record',
      format: 'json',
      data: JSON.stringify([{ ...followUp, odi: 'abc' }]),
    });
    expect(engine.error()).toMatch(new RegExp(`^"${code}","odi","abc","[^"]+"$`));
    expect((await exportJson({ records: [code] })).find((r) => r.odi === '30')).toBeDefined();
  });

  it('accepts <form>_complete in fields as REDCap does and exports the status only where REDCap would', async () => {
    const forms = await formsOf();
    const all = await exportJson({ records: [code] });
    const columns = Object.keys(all[0]!);
    // Every instrument has its status column in a full export, list groups' included.
    for (const form of forms) expect(columns, form).toContain(`${form}_complete`);
    const names = (await redcap({ token, content: 'exportFieldNames', format: 'json' })).json() as Row[];
    for (const form of forms) {
      expect(names).toContainEqual({
        original_field_name: `${form}_complete`,
        choice_value: '',
        export_field_name: `${form}_complete`,
      });
    }
    const formOfSex = (
      (await redcap({ token, content: 'metadata', format: 'json', fields: ['sex'] })).json() as Row[]
    ).find((f) => f.field_name === 'sex')!.form_name!;
    // A field alone does not bring its form's status; asking for the status does, as PyCap always does.
    const plain = await exportJson({ records: [code], fields: ['sex'] });
    expect(Object.keys(plain[0]!)).not.toContain(`${formOfSex}_complete`);
    const withStatus = await exportJson({ records: [code], fields: ['sex', `${formOfSex}_complete`] });
    expect(withStatus.find((r) => r.sex === '1')).toMatchObject({ [`${formOfSex}_complete`]: '0' });
    const statusOnly = await exportJson({ records: [code], fields: [`${formOfSex}_complete`, 'record_id'] });
    expect(statusOnly.find((r) => r[`${formOfSex}_complete`] === '0')).toBeDefined();
    expect(Object.keys(statusOnly[0]!)).not.toContain('sex');
    const byForm = await exportJson({ records: [code], forms: [formOfSex] });
    expect(Object.keys(byForm[0]!)).toContain(`${formOfSex}_complete`);
    expect((await redcap({ token, content: 'record', format: 'json', fields: ['nope_complete'] })).status).toBe(400);
  });

  it('content=pdf and the other methods we do not offer answer a REDCap error, never a file', async () => {
    for (const content of ['pdf', 'user', 'repeatingFormsEvents', 'dag', 'report']) {
      const res = await redcap({ token, content, action: 'export', returnFormat: 'json' });
      expect(res.status, content).toBe(400);
      expect(res.type, content).toContain('application/json');
      expect(res.headers['content-disposition'], content).toBeUndefined();
      expect(res.error(), content).toContain(`content=${content}`);
    }
  });

  it("answers at REDCap's address /redcap/api/ too, the same calls", async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/redcap/api/',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ token, content: 'version' }).toString(),
    });
    expect([res.statusCode, res.body]).toEqual([200, '14.0.0']);
    await t.app.flushOperLogs();
    const logged = await t.db.select().from(operLogs).where(eq(operLogs.operUrl, '/redcap/api/'));
    expect(logged).toEqual([expect.objectContaining({ businessType: 'version.export', httpStatus: 200 })]);
  });

  it('both addresses count against one limit per address (REDCAP_API_RATE_LIMIT_PER_MINUTE), then 429 as REDCap errors', async () => {
    const limited = await createTestApp({ config: { redcapApiRateLimitPerMinute: 3 } });
    try {
      const statuses: number[] = [];
      let last = '';
      for (const url of ['/api/redcap', '/redcap/api/', '/api/redcap', '/redcap/api/']) {
        const res = await limited.app.inject({
          method: 'POST',
          url,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: 'content=version',
        });
        statuses.push(res.statusCode);
        last = res.body;
      }
      expect(statuses).toEqual([401, 401, 401, 429]);
      expect(last).toContain('<error>请求过于频繁，请稍后再试</error>');
    } finally {
      await limited.close();
    }
  });
});

describe('REDCap API: who may call, and errors', () => {
  it('refuses bad parameters with REDCap-style errors', async () => {
    const none = await redcap({ content: 'record' });
    expect(none.status).toBe(401);
    // Without format or returnFormat an error is XML, REDCap's default, exactly as REDCap writes it.
    expect(none.type).toContain('text/xml');
    expect(none.text).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8" \?>\n<hash>\n {2}<error>[^<]+<\/error>\n<\/hash>$/,
    );
    expect((await redcap({ token: '0'.repeat(32), content: 'record' })).status).toBe(401);
    const bad = await redcap({ token, content: 'nonsense' });
    expect(bad.status).toBe(400);
    expect(bad.error()).toContain('content');
    const xmlError = await redcap({ token, content: 'nonsense', format: 'xml' });
    expect(xmlError.type).toContain('xml');
    expect(parseXml(xmlError.text)).toEqual({ hash: { error: expect.stringContaining('content') } });
    expect((await redcap({ token, content: 'nonsense', format: 'xml', returnFormat: 'json' })).json()).toHaveProperty(
      'error',
    );
    expect((await redcap({ token, content: 'metadata', action: 'import' })).status).toBe(400);
    expect((await redcap({ token, content: 'record', fields: ['no_such_field'] })).status).toBe(400);
    const csvError = await redcap({ token, content: 'nonsense', returnFormat: 'csv' });
    expect(csvError.text).toMatch(/^ERROR: 不支持 content=nonsense/);
    const get = await t.app.inject({ method: 'GET', url: `/api/redcap?token=${token}&content=record` });
    expect(get.statusCode).toBe(404);
  });

  it('a multipart body with a bad boundary or cut short is a REDCap-style 400, never 500', async () => {
    const post = (contentType: string, payload: string) =>
      t.app.inject({ method: 'POST', url: '/api/redcap', headers: { 'content-type': contentType }, payload });
    const fields = `--b\r\nContent-Disposition: form-data; name="token"\r\n\r\n${token}\r\n`;
    const answers = [
      await post('multipart/form-data', `${fields}--b--\r\n`),
      await post('multipart/form-data; boundary=', `${fields}--b--\r\n`),
      await post(`multipart/form-data; boundary=${'b'.repeat(300)}`, `${fields}--b--\r\n`),
      await post('multipart/form-data; boundary=other', `${fields}--b--\r\n`),
      // The parameters of a file import, then a file part that never reaches its closing boundary.
      await post(
        'multipart/form-data; boundary=b',
        fields +
          Object.entries({ content: 'file', action: 'import', record: code, field: 'lab_report' })
            .map(([name, value]) => `--b\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
            .join('') +
          '--b\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nHb 135',
      ),
    ];
    for (const res of answers) {
      expect(res.statusCode, res.body).toBe(400);
      expect(answerOf(res).error()).toMatch(/^请求内容格式不正确/);
    }
    // Asked for XML before the body broke: the error is XML.
    const xml = await post(
      'multipart/form-data; boundary=b',
      `--b\r\nContent-Disposition: form-data; name="returnFormat"\r\n\r\nxml\r\n--b\r\nContent-Disposition: form-da`,
    );
    expect(xml.statusCode).toBe(400);
    expect(parseXml(xml.body)).toEqual({ hash: { error: expect.stringMatching(/^请求内容格式不正确/) } });
  });

  it('a NUL in records[] or in any parameter is a REDCap-style 400 before any query, never 500', async () => {
    const form = await redcap({ token, content: 'record', records: [code, 'a\u0000b'] });
    expect(form.status, form.text).toBe(400);
    expect(form.error()).toBe('请求内容格式不正确：参数 records[1] 含有无法保存的字符');
    const csv = await redcap({ token, content: 'record', records: ['a\u0000b'], returnFormat: 'csv' });
    expect(csv.status).toBe(400);
    expect(csv.text).toContain('records[0]');
    expect((await redcap({ token, content: 'record', 'fields\u0000': 'x' })).status).toBe(400);
    const multipart = await redcapMultipart({ token, content: 'record', 'records[]': 'a\u0000b' });
    expect(multipart.status, multipart.text).toBe(400);
    expect((parseXml(multipart.text).hash as Row).error).toContain('records[]');
    // Escaped in the imported JSON: the NUL exists only after parsing, and is refused there.
    const before = await exportJson({ records: [code] });
    const data = JSON.stringify([{ ...before[0], weight: 'a\u0000b' }]);
    const imported = await redcap({ token, content: 'record', action: 'import', data, reason: '更正' });
    expect(imported.status, imported.text).toBe(400);
    expect(imported.error()).toContain('参数 data');
    expect(await exportJson({ records: [code] })).toEqual(before);
  });

  it('a member without view permission on a CRF does not see its fields; a token of one study reads only that study', async () => {
    const member = await addStudyMember(t, admin, studyId, '13700000001', {
      permissions: [`crf:${crfIds['生命体征']}:view`],
    });
    const created = await createToken(member);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const memberToken = created.body.data.token as string;
    const metadata = (await redcap({ token: memberToken, content: 'metadata' })).json() as Row[];
    expect(metadata.some((f) => f.field_name === 'sbp')).toBe(true);
    expect(metadata.some((f) => f.field_name === 'weight' || f.field_name === 'comorbid')).toBe(false);
    const rows = await exportJson({}, memberToken);
    expect(rows.some((r) => 'weight' in r || 'comorbid___htn' in r)).toBe(false);
    expect((await redcap({ token: memberToken, content: 'record', fields: ['weight'] })).status).toBe(400);
    // Seeing is not changing: an import into a form the member may only view is refused.
    const vitals = rows.find((r) => r.sbp === '130')!;
    const refused = await redcap({
      token: memberToken,
      content: 'record',
      action: 'import',
      data: JSON.stringify([{ ...vitals, hr: '99' }]),
      reason: 'x',
    });
    expect(refused.status).toBe(403);
    // A study the member is not staff of: no token for it.
    const other = await t.call(admin, 'POST', '/api/business/study', { studyName: '另一项目', studyCode: 'OTHER-1' });
    const otherId = (other.body.data?.studyId ?? other.body.data?.id) as number | undefined;
    if (otherId) expect((await createToken(member, otherId)).status).toBe(403);
    const project = (await redcap({ token: memberToken, content: 'project' })).json();
    expect(project.project_id).toBe(studyId);
  });

  it('a revoked token, a disabled user and a user who left the study are refused', async () => {
    const member = await addStudyMember(t, admin, studyId, '13700000002', {
      permissions: [`crf:${crfIds['生命体征']}:view`],
    });
    const [userRow] = await t.db.select().from(users).where(eq(users.userName, '13700000002'));
    const key = (await createToken(member)).body.data.token as string;
    expect((await redcap({ token: key, content: 'version' })).status).toBe(200);
    await t.db.update(users).set({ status: 1 }).where(eq(users.userId, userRow!.userId));
    expect((await redcap({ token: key, content: 'record' })).status).toBe(403);
    await t.db.update(users).set({ status: 0 }).where(eq(users.userId, userRow!.userId));
    await t.db.delete(studyPersonnel).where(eq(studyPersonnel.userId, userRow!.userId));
    expect((await redcap({ token: key, content: 'record' })).status).toBe(403);

    const list = (await t.call(admin, 'GET', '/api/system/user/profile/apiToken')).body.data as Array<{ id: number }>;
    const revoked = await t.call(admin, 'DELETE', `/api/system/user/profile/apiToken/${list[0]!.id}`);
    expect(revoked.status).toBe(200);
    const refused = await redcap({ token, content: 'record', format: 'json' });
    expect(refused.status).toBe(401);
    expect(refused.json()).toHaveProperty('error');
    expect(await t.db.select().from(auditEvents).where(eq(auditEvents.action, 'api_token.revoke'))).toHaveLength(1);
  });

  it('one live token per user and study, kept by a unique index: of two creations at once one is refused 409', async () => {
    const answers = await Promise.all([createToken(admin), createToken(admin)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(answers.find((a) => a.status === 409)!.body.msg).toBe('您在该项目已有有效的API令牌，请先撤销');
    expect((await createToken(admin)).status).toBe(409);
  });

  it('every call is in the operation log with its content and counts, never the token or values', async () => {
    await t.app.flushOperLogs();
    const logs = await t.db.select().from(operLogs).where(eq(operLogs.operUrl, '/api/redcap'));
    expect(logs.length).toBeGreaterThan(10);
    expect(logs.some((l) => l.businessType === 'record.import' && /records=1/.test(l.target ?? ''))).toBe(true);
    const all = JSON.stringify(logs);
    expect(all).not.toContain(token);
    expect(all).not.toContain('病历核对后更正');
    // A refused value is named by its field, never written down.
    expect(logs.some((l) => /个值不符合要求（字段：.*odi/.test(l.errorMsg ?? ''))).toBe(true);
    expect(all).not.toContain('"abc"');
  });
});
