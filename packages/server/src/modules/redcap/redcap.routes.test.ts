import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importRedcapDictionary, exportRedcapDictionary } from '@ecrf/core/interop';
import { apiTokens, auditEvents, crfVersions, operLogs, studyPersonnel, users } from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
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
  return { status: res.statusCode, type: String(res.headers['content-type']), text: res.body, json: () => res.json() };
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
  const enrolled = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName: '赵六',
    gender: 1,
    birth: '1960-05-01',
    diseaseCode: 'LSS',
  });
  expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
  code = enrolled.body.data.identificationCode;
  const subjectRecordId = enrolled.body.data.subjectRecordId as number;
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
      .where(and(eq(auditEvents.action, 'item.update'), eq(auditEvents.itemName, 'weight')));
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
    expect(imported.text).toBe('count\n1\n');
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
    expect(res.json().error).toContain('odi');
    expect((await exportJson({ records: [code] })).find((r) => r.sex === '1')!.weight).toBe('72');
  });

  it("changes to a submitted form need the caller's reason, as on the form page", async () => {
    const vitals = (await exportJson({ records: [code] })).find((r) => r.sbp === '130')!;
    const data = JSON.stringify([{ ...vitals, hr: '75' }]);
    const refused = await redcap({ token, content: 'record', action: 'import', data });
    expect(refused.status).toBe(400);
    expect(refused.json().error).toContain('reason');
    const accepted = await redcap({ token, content: 'record', action: 'import', data, reason: '病历核对后更正' });
    expect(accepted.status, accepted.text).toBe(200);
    const rows = await t.db.select().from(auditEvents).where(eq(auditEvents.itemName, 'hr'));
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

describe('REDCap API: who may call, and errors', () => {
  it('refuses bad parameters with REDCap-style errors', async () => {
    const none = await redcap({ content: 'record' });
    expect(none.status).toBe(401);
    expect(none.json()).toHaveProperty('error');
    expect((await redcap({ token: '0'.repeat(32), content: 'record' })).status).toBe(401);
    const bad = await redcap({ token, content: 'nonsense' });
    expect(bad.status).toBe(400);
    expect(bad.json().error).toContain('content');
    expect((await redcap({ token, content: 'record', format: 'xml' })).json().error).toContain('xml');
    expect((await redcap({ token, content: 'metadata', action: 'import' })).status).toBe(400);
    expect((await redcap({ token, content: 'record', fields: ['no_such_field'] })).status).toBe(400);
    const csvError = await redcap({ token, content: 'nonsense', returnFormat: 'csv' });
    expect(csvError.text).not.toContain('{');
    const get = await t.app.inject({ method: 'GET', url: `/api/redcap?token=${token}&content=record` });
    expect(get.statusCode).toBe(404);
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
    const refused = await redcap({ token, content: 'record' });
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
  });
});
