import { and, eq } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonKey, crfKey, IDENTIFIER_MASK } from '@ecrf/core';
import { auditEvents, crfDataRecords } from '../../db/schema/index.js';
import { addStudyMember } from '../../test/study-member.js';
import { openDemoStudy } from '../../test/demo.js';
import { multipart } from '../../test/multipart.js';
import { CONTACTS } from '../../test/identifier-form.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/**
 * The save side of identifier items (docs/decisions.md, "Identifier items"): a member without 查看患者身份信息
 * reads them as ******, and saving the form as it was shown must never write the mask over what is stored. A mask
 * sent back is the stored value; without the permission a stored identifier is neither changed nor cleared (it
 * may be filled while empty); in a list group a row is recognised by how it was shown.
 */
let t: TestApp;
let admin: string;
let studyId: number;
let crfId: number;
const tokens = { masked: '', clear: '' };
const M = IDENTIFIER_MASK;

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, studyId } = await openDemoStudy(t));
  const uploaded = await t.call(admin, 'POST', '/api/system/crf', { studyId, definition: CONTACTS });
  expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(200);
  crfId = uploaded.body.data.crfs[0].id;
  const work = [crfKey(crfId, 'view'), crfKey(crfId, 'save'), crfKey(crfId, 'submit')];
  tokens.masked = await addStudyMember(t, admin, studyId, '13500000001', { permissions: work });
  tokens.clear = await addStudyMember(t, admin, studyId, '13500000002', {
    permissions: [...work, buttonKey('business.subject.identifiers')],
  });
});
afterAll(() => t.close());

async function enrol(subjectName: string) {
  const res = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName,
    gender: 1,
    diseaseCode: 'LSS',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.subjectRecordId as number;
}

/** The form as a member's page reads it: the record's id, version and values. */
async function open(token: string, subjectRecordId: number) {
  const res = await t.call(token, 'GET', `/api/v3/business/crf/${subjectRecordId}?crfId=${crfId}`);
  expect(res.status).toBe(200);
  return res.body.data.crfDataRecord as { crfDataRecordId: number; version: number; values: Record<string, unknown> };
}

const save = (
  token: string,
  subjectRecordId: number,
  record: { crfDataRecordId?: number; version?: number },
  values: object,
) =>
  t.call(token, 'PUT', '/api/v3/business/crf', {
    subjectRecordId,
    crfId,
    crfDataRecordId: record.crfDataRecordId,
    version: record.version ?? 0,
    values,
  });

async function stored(crfDataRecordId: number) {
  const [row] = await t.db.select().from(crfDataRecords).where(eq(crfDataRecords.id, crfDataRecordId));
  return row!;
}

/** A patient whose form the administrator filled: 住院号 ZY-1, two relatives named. */
async function filled(name: string) {
  const subjectRecordId = await enrol(name);
  const res = await save(
    admin,
    subjectRecordId,
    {},
    {
      hospital_no: 'ZY-1',
      height: 170,
      family: [
        { who: '张一', rel: '父' },
        { who: '张二', rel: '母' },
      ],
    },
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { subjectRecordId, recordId: res.body.data.crfDataRecordId as number };
}

describe('saving a form whose identifiers the saver sees masked', () => {
  it('the form saved back as it was shown keeps the stored identifiers; only what was changed is saved and audited', async () => {
    const { subjectRecordId, recordId } = await filled('周一');
    const shown = await open(tokens.masked, subjectRecordId);
    expect(shown.values).toEqual({
      hospital_no: M,
      height: '170',
      family: [
        { who: M, rel: '父' },
        { who: M, rel: '母' },
      ],
    });
    const res = await save(tokens.masked, subjectRecordId, shown, { ...shown.values, height: 171 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.changedItems).toEqual(['height']);
    expect((await stored(recordId)).values).toEqual({
      hospital_no: 'ZY-1',
      height: '171',
      family: [
        { who: '张一', rel: '父' },
        { who: '张二', rel: '母' },
      ],
    });
    const audited = await t.db
      .select({ itemName: auditEvents.itemName })
      .from(auditEvents)
      .where(and(eq(auditEvents.crfDataRecordId, recordId), eq(auditEvents.action, 'item.update')));
    expect(audited.filter((a) => a.itemName === 'hospital_no' || a.itemName === 'family')).toHaveLength(2);
    expect(audited.filter((a) => a.itemName === 'height')).toHaveLength(2);
  });

  it('without the permission a stored identifier is neither changed nor cleared (403, nothing saved); left out it is kept', async () => {
    const { subjectRecordId, recordId } = await filled('周二');
    const shown = await open(tokens.masked, subjectRecordId);
    for (const hospital_no of ['ZY-2', null, '']) {
      const res = await save(tokens.masked, subjectRecordId, shown, { ...shown.values, hospital_no });
      expect(res.status, JSON.stringify(hospital_no)).toBe(403);
      expect(res.body).toMatchObject({ msg: '无权修改已填写的身份标识字段（需要“查看患者身份信息”权限）' });
    }
    expect(await stored(recordId)).toMatchObject({ version: 1, values: { hospital_no: 'ZY-1' } });
    const { hospital_no: _left, ...rest } = shown.values;
    const res = await save(tokens.masked, subjectRecordId, shown, rest);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await stored(recordId)).values).toMatchObject({ hospital_no: 'ZY-1' });
  });

  it('without the permission an empty identifier may be filled (then it reads masked), and a new row added', async () => {
    const subjectRecordId = await enrol('周三');
    const res = await save(
      tokens.masked,
      subjectRecordId,
      {},
      {
        hospital_no: 'ZY-NEW',
        family: [{ who: '周父', rel: '父' }],
      },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await stored(res.body.data.crfDataRecordId)).values).toMatchObject({
      hospital_no: 'ZY-NEW',
      family: [{ who: '周父', rel: '父' }],
    });
    expect((await open(tokens.masked, subjectRecordId)).values).toMatchObject({
      hospital_no: M,
      family: [{ who: M, rel: '父' }],
    });
  });

  it('list-group rows: removed or added rows keep each row its own identifier; an edited masked row is refused (409)', async () => {
    const { subjectRecordId, recordId } = await filled('周四');
    const shown = await open(tokens.masked, subjectRecordId);
    const family = shown.values.family as Array<Record<string, unknown>>;
    const moved = await save(tokens.masked, subjectRecordId, shown, {
      ...shown.values,
      family: [family[1], { who: '周子', rel: '子' }],
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect((await stored(recordId)).values.family).toEqual([
      { who: '张二', rel: '母' },
      { who: '周子', rel: '子' },
    ]);
    const again = await open(tokens.masked, subjectRecordId);
    const edited = await save(tokens.masked, subjectRecordId, again, {
      ...again.values,
      family: [{ who: M, rel: '继母' }, (again.values.family as unknown[])[1]],
    });
    expect(edited.status).toBe(409);
    expect(edited.body.msg).toBe('含隐藏身份标识的行已被修改，请刷新后重试');
    expect((await stored(recordId)).version).toBe(2);
  });

  it('the mask is never stored: in an item that is no identifier it is refused (400)', async () => {
    const subjectRecordId = await enrol('周五');
    for (const token of [tokens.masked, tokens.clear]) {
      const res = await save(token, subjectRecordId, {}, { height: M });
      expect(res.status).toBe(400);
      expect(res.body.msg).toBe(`“${M}”代表隐藏的身份标识，不能作为填写的值`);
    }
  });

  it('with the permission a mask sent back (a page opened before it was granted) keeps the value, a typed value is taken', async () => {
    const { subjectRecordId, recordId } = await filled('周六');
    const shown = await open(tokens.masked, subjectRecordId);
    const back = await save(tokens.clear, subjectRecordId, shown, { ...shown.values, height: 180 });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect((await stored(recordId)).values).toMatchObject({
      hospital_no: 'ZY-1',
      family: [{ who: '张一' }, { who: '张二' }],
    });
    const clear = await open(tokens.clear, subjectRecordId);
    expect(clear.values.hospital_no).toBe('ZY-1');
    const typed = await save(tokens.clear, subjectRecordId, clear, { ...clear.values, hospital_no: 'ZY-9' });
    expect(typed.status).toBe(200);
    expect((await stored(recordId)).values.hospital_no).toBe('ZY-9');
  });

  it('a save conflict answers the current values as the saver may read them', async () => {
    const { subjectRecordId } = await filled('周日');
    const shown = await open(tokens.masked, subjectRecordId);
    expect((await save(admin, subjectRecordId, shown, { hospital_no: 'ZY-7', height: 175 })).status).toBe(200);
    const late = await save(tokens.masked, subjectRecordId, shown, { ...shown.values, height: 176 });
    expect(late.status).toBe(409);
    expect(late.body.data.current.values).toEqual({ hospital_no: M, height: '175', family: [] });
    expect(JSON.stringify(late.body)).not.toContain('ZY-7');
  });

  it('data import: without the permission the preview shows identifier changes masked, and a stored one is not changed', async () => {
    const { subjectRecordId, recordId } = await filled('吴一');
    const empty = await enrol('吴二');
    const code = async (id: number) =>
      (await t.call(admin, 'GET', `/api/business/subject/${id}`)).body.data.identificationCode as string;
    const wb = new ExcelJS.Workbook();
    const sheet = wb.addWorksheet('联系信息');
    sheet.addRow(['编号', 'hospital_no', 'height']);
    sheet.addRow([await code(subjectRecordId), 'ZY-IMPORTED', 180]);
    sheet.addRow([await code(empty), 'ZY-FIRST', 160]);
    const upload = async (token: string, dryRun: boolean) => {
      const body = multipart({}, [{ fileName: '导入.xlsx', data: Buffer.from(await wb.xlsx.writeBuffer()) }]);
      const qs = new URLSearchParams({ studyId: String(studyId), submitType: '0', dryRun: String(dryRun) });
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/business/import/multi_crf_sheet/multi_thread?${qs}`,
        headers: { ...body.headers, authorization: `Bearer ${token}` },
        payload: body.payload,
      });
      return { status: res.statusCode, text: res.body, body: res.json() };
    };
    const preview = await upload(tokens.masked, true);
    expect(preview.status, preview.text).toBe(200);
    expect(preview.text).not.toContain('ZY-1');
    const rows = preview.body.data.rows as Array<{
      row: number;
      errors: Array<{ message: string }>;
      changes: unknown[];
    }>;
    const changed = rows.find((r) => r.row === 2)!;
    expect(changed.errors.map((e) => e.message)).toEqual([
      '无权修改已填写的身份标识字段（需要“查看患者身份信息”权限）',
    ]);
    expect(changed.changes).toEqual(
      expect.arrayContaining([expect.objectContaining({ item: 'hospital_no', old: M, new: M })]),
    );
    expect(rows.find((r) => r.row === 3)!.errors).toEqual([]);
    // The clear member's preview shows the values and no refusal.
    const clear = await upload(tokens.clear, true);
    expect(clear.text).toContain('ZY-1');
    expect(clear.body.data.rows.find((r: { row: number }) => r.row === 2).errors).toEqual([]);
    expect((await stored(recordId)).values.hospital_no).toBe('ZY-1');
  });
});
