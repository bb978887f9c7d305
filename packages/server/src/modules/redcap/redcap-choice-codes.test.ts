import { and, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrfDefinition } from '@ecrf/core';
import { crfDataRecords } from '../../db/schema/index.js';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { checkboxColumn } from './redcap-project.js';

/**
 * A checkbox code REDCap refuses (`L1/2`: only letters, digits, `.`, `_` and `-`) has a REDCap code of its own
 * (`L1_2`, redcapChoiceCodes), and the API speaks only that one: the flat column `<field>___l1_2`, the EAV value
 * `L1_2` out and in; the stored value stays ours. A raw `L1/2` in EAV is not a REDCap code and is refused.
 */
const FIELD = 'spine_level';
const LEVELS: CrfDefinition = {
  title: '节段',
  option: {},
  children: [
    {
      name: FIELD,
      title: '手术节段',
      type: 'checkbox',
      option: { optionsValue: 'L1/2,a', optionsText: 'L1/2 节段,其他' },
      children: [],
    },
  ],
};

type Row = Record<string, string>;
let t: TestApp;
let token: string;
let crfId: number;
let event: string;
const patient = { flat: { code: '', recordId: 0 }, eav: { code: '', recordId: 0 } };
const column = checkboxColumn(FIELD, 'L1_2');

async function redcap(params: Record<string, string | string[]>) {
  const body = new URLSearchParams({ token, format: 'json', returnFormat: 'json' });
  for (const [key, value] of Object.entries(params)) {
    if (Array.isArray(value)) value.forEach((v, i) => body.append(`${key}[${i}]`, v));
    else body.set(key, value);
  }
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/redcap',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: body.toString(),
  });
  return { status: res.statusCode, text: res.body, json: () => res.json() };
}

async function exportRows(type: 'flat' | 'eav', record: string) {
  const res = await redcap({ content: 'record', type, records: [record], fields: [FIELD] });
  expect(res.status, res.text).toBe(200);
  return res.json() as Row[];
}

const importRows = (type: 'flat' | 'eav', rows: Row[]) =>
  redcap({ content: 'record', action: 'import', type, data: JSON.stringify(rows) });

async function storedLevels(subjectRecordId: number) {
  const [row] = await t.db
    .select({ values: crfDataRecords.values })
    .from(crfDataRecords)
    .where(
      and(
        eq(crfDataRecords.subjectRecordId, subjectRecordId),
        eq(crfDataRecords.crfId, crfId),
        isNull(crfDataRecords.deletedAt),
      ),
    );
  return row?.values[FIELD];
}

beforeAll(async () => {
  t = await createTestApp({ config: { dataDir: `/tmp/edc-redcap-choice-codes-${process.pid}` } });
  const { admin, studyId } = await openDemoStudy(t);
  const uploaded = await t.call(admin, 'POST', '/api/system/crf', { studyId, definition: LEVELS });
  expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(200);
  crfId = uploaded.body.data.crfs[0].id;
  for (const [key, subjectName] of [
    ['flat', '周九'],
    ['eav', '吴十'],
  ] as const) {
    const enrolled = await enrolDemoPatient(t, admin, studyId, { subjectName });
    patient[key] = { code: enrolled.identificationCode, recordId: enrolled.subjectRecordId };
  }
  const created = await t.call(admin, 'POST', '/api/system/user/profile/apiToken', { studyId });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  token = created.body.data.token;
  // The form is in no stage of the demo study: REDCap's unscheduled event of its arm holds it.
  const metadata = (await redcap({ content: 'metadata', fields: [FIELD] })).json() as Row[];
  const field = metadata.find((m) => m.field_name === FIELD)!;
  expect(field).toMatchObject({ field_type: 'checkbox', select_choices_or_calculations: 'L1_2, L1/2 节段 | a, 其他' });
  const mapping = (await redcap({ content: 'formEventMapping' })).json() as Row[];
  event = mapping.find((m) => m.form === field.form_name)!.unique_event_name!;
});
afterAll(() => t.close());

describe('REDCap API: a checkbox code REDCap refuses goes by its REDCap code', () => {
  it('a flat import of its column stores our code; EAV and flat exports give REDCap’s', async () => {
    expect(column).toBe(`${FIELD}___l1_2`);
    const { code, recordId } = patient.flat;
    const imported = await importRows('flat', [{ record_id: code, redcap_event_name: event, [column]: '1' }]);
    expect(imported.status, imported.text).toBe(200);
    expect(imported.json()).toEqual({ count: 1 });
    expect(await storedLevels(recordId)).toEqual(['L1/2']);

    const eav = await exportRows('eav', code);
    expect(eav.filter((r) => r.field_name === FIELD)).toEqual([
      expect.objectContaining({ record: code, redcap_event_name: event, field_name: FIELD, value: 'L1_2' }),
    ]);
    const [flat] = (await exportRows('flat', code)).filter((r) => r.redcap_event_name === event);
    expect(flat).toMatchObject({ record_id: code, [column]: '1', [`${FIELD}___a`]: '0' });
  });

  it('an EAV import of the REDCap code stores ours, and exports back as it came', async () => {
    const { code, recordId } = patient.eav;
    const imported = await importRows('eav', [
      { record: code, redcap_event_name: event, field_name: FIELD, value: 'L1_2' },
    ]);
    expect(imported.status, imported.text).toBe(200);
    expect(await storedLevels(recordId)).toEqual(['L1/2']);
    const [flat] = (await exportRows('flat', code)).filter((r) => r.redcap_event_name === event);
    expect(flat).toMatchObject({ [column]: '1', [`${FIELD}___a`]: '0' });
    expect((await exportRows('eav', code)).filter((r) => r.field_name === FIELD).map((r) => r.value)).toEqual(['L1_2']);
  });

  it('an EAV import of the raw L1/2 is refused with REDCap’s error line, nothing written', async () => {
    const { code, recordId } = patient.eav;
    const before = await storedLevels(recordId);
    const refused = await importRows('eav', [
      { record: code, redcap_event_name: event, field_name: FIELD, value: 'a' },
      { record: code, redcap_event_name: event, field_name: FIELD, value: 'L1/2' },
    ]);
    expect(refused.status).toBe(400);
    const error = (refused.json() as { error: string }).error;
    expect(error.split('\n')).toEqual([expect.stringMatching(new RegExp(`^"${code}","${FIELD}","L1/2","[^"]+"$`))]);
    expect(await storedLevels(recordId)).toEqual(before);
  });
});
