import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchCondition } from '@ecrf/core';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/**
 * 缺失原因 (issue 37) in data retrieval: 缺失原因为 / 已标记缺失 on a form's items, and a marked item is neither 为空
 * (nothing recorded, the gaps to chase) nor 不为空 (a value). Patients: ND 收缩压 marked 未查(ND); UNK marked 未知(UNK);
 * VAL 120; NONE no 生命体征 record at all.
 */
let t: TestApp;
let admin: string;
let studyId: number;
let vitals: number;
const P: Record<'ND' | 'UNK' | 'VAL' | 'NONE', number> = { ND: 0, UNK: 0, VAL: 0, NONE: 0 };

beforeAll(async () => {
  t = await createTestApp();
  const demo = await openDemoStudy(t);
  ({ admin, studyId } = demo);
  vitals = demo.crfIds['生命体征']!;
  for (const key of Object.keys(P) as Array<keyof typeof P>) {
    P[key] = (await enrolDemoPatient(t, admin, studyId, { subjectName: `检索缺失${key}` })).subjectRecordId;
  }
  const save = async (subjectRecordId: number, body: object) => {
    const res = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId,
      crfId: vitals,
      version: 0,
      ...body,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };
  await save(P.ND, { values: { dbp: '80' }, missing: { sbp: 'ND' } });
  await save(P.UNK, { values: { dbp: '70' }, missing: { sbp: 'UNK' } });
  await save(P.VAL, { values: { sbp: '120', dbp: '80' } });
});
afterAll(() => t.close());

const sbp = (operator: string, values: string[] = []) =>
  ({ kind: 'item', crfId: vitals, itemName: 'sbp', operator, values }) as SearchCondition;

async function search(condition: SearchCondition, columns: object[] = []) {
  return t.call(admin, 'POST', '/api/business/search/v2', {
    studyId,
    conditions: { join: 'and', groups: [{ conditions: [condition] }] },
    columns,
    pageNum: 1,
    pageSize: 100,
  });
}

/** Which of this file's patients a condition finds (the demo's own patients ignored). */
async function found(condition: SearchCondition) {
  const res = await search(condition);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const ids = (res.body.data.list as Array<{ subjectRecordId: number }>).map((r) => r.subjectRecordId);
  return (Object.keys(P) as Array<keyof typeof P>).filter((k) => ids.includes(P[k]));
}

describe('缺失原因 in data retrieval (issue 37)', () => {
  it('the dictionary offers 缺失原因为 and 已标记缺失 on a form item, with the study’s codes', async () => {
    const res = await t.call(admin, 'GET', `/api/business/search/dics?studyId=${studyId}`);
    expect(res.status).toBe(200);
    const item = res.body.data.crfs
      .find((c: { crfId: number }) => c.crfId === vitals)
      .items.find((i: { name: string }) => i.name === 'sbp');
    expect(item.operators).toEqual(expect.arrayContaining(['missing', 'missingAny']));
    expect(res.body.data.missingCodes).toContainEqual({ value: 'ND', label: '未查(ND)' });
    // A list group's cells are never marked: its columns do not offer them.
    const columns = res.body.data.crfs.flatMap((c: { items: Array<{ group: unknown; operators: string[] }> }) =>
      c.items.filter((i) => i.group),
    );
    expect(columns.length).toBeGreaterThan(0);
    for (const column of columns) expect(column.operators).not.toContain('missingAny');
  });

  it('缺失原因为 ND finds the item marked ND; with ND and UNK both; 已标记缺失 any code', async () => {
    expect(await found(sbp('missing', ['ND']))).toEqual(['ND']);
    expect(await found(sbp('missing', ['ND', 'UNK']))).toEqual(['ND', 'UNK']);
    expect(await found(sbp('missingAny'))).toEqual(['ND', 'UNK']);
  });

  it('a marked item is neither 为空 (nothing recorded) nor 不为空 (a value)', async () => {
    expect(await found(sbp('empty'))).toEqual(['NONE']);
    expect(await found(sbp('notEmpty'))).toEqual(['VAL']);
    expect(await found(sbp('gt', ['0']))).toEqual(['VAL']);
  });

  it('a result column shows a mark as [缺失:ND], as the audit trail does', async () => {
    const res = await search(sbp('missingAny'), [{ kind: 'item', crfId: vitals, itemName: 'sbp' }]);
    const row = res.body.data.list.find((r: { subjectRecordId: number }) => r.subjectRecordId === P.ND);
    expect(row.cells[`c${vitals}.sbp`]).toBe('[缺失:ND]');
  });

  it('a code not of the code format is refused (400)', async () => {
    const res = await search(sbp('missing', ['nd']));
    expect(res.status).toBe(400);
    expect(res.body.msg).toContain('缺失原因代码无效');
  });
});
