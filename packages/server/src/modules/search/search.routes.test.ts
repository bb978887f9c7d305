import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonKey, crfKey, type SearchCondition } from '@ecrf/core';
import { crfStages, searchTemplates, subjects } from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../test/test-app.js';

/**
 * Data retrieval (检索) through the HTTP API against the real database: the dictionary, every operator on every
 * item kind, 且/或 groups, repeatable records, stages, form states, paging, permissions, injection attempts and
 * saved templates. Three patients of the demo spine registry:
 *   A 男 1958, SBP 150 submitted and verified, signed; 汉族, 高血压+糖尿病; two follow-ups (ODI 30 and 50)
 *   B 女 1990, SBP 120 saved, with an open query (A has a system query: SBP above the reference range); 回族, 骨质疏松; one follow-up (ODI 20)
 *   C 男 1975, no vitals; nothing but 人口学资料 with 汉族
 */
let t: TestApp;
let admin: string;
let studyId: number;
const crfIds: Record<string, number> = {};
const stageIds: Record<string, number> = {};
const P: Record<'A' | 'B' | 'C', number> = { A: 0, B: 0, C: 0 };
const ID_NUMBER = '11010519491231002X';

async function enrol(subjectName: string, gender: number, birth: string, extra: object = {}) {
  const res = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName,
    gender,
    birth,
    diseaseCode: 'LSS',
    mobile: '13800000009',
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.subjectRecordId as number;
}

async function save(subjectRecordId: number, crf: string, values: object, submit = false) {
  const res = await t.call(admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId,
    crfId: crfIds[crf],
    version: 0,
    values,
    submit,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.crfDataRecordId as number;
}

beforeAll(async () => {
  t = await createTestApp();
  const demo = await openDemoStudy(t);
  ({ admin, studyId } = demo);
  Object.assign(crfIds, demo.crfIds);
  for (const s of await t.db.select().from(crfStages).where(eq(crfStages.studyId, studyId))) stageIds[s.name] = s.id;

  P.A = await enrol('张三', 1, '1958-03-02', { idNumber: ID_NUMBER });
  P.B = await enrol('李四', 0, '1990-07-15');
  P.C = await enrol('王五', 1, '1975-01-01');

  const vitalsA = await save(P.A, '生命体征', { sbp: 150, dbp: 90, hr: 80 }, true);
  const vitalsB = await save(P.B, '生命体征', { sbp: 120, dbp: 70 });
  await save(P.A, '人口学资料', {
    ethnic: 'han',
    comorbid: ['htn', 'dm'],
    insurance: 'urban,self',
    history_note: '腰痛三年，50%时间卧床',
    height: 170,
  });
  await save(P.B, '人口学资料', { ethnic: 'hui', comorbid: ['op'], history_note: '无' });
  await save(P.C, '人口学资料', { ethnic: 'han' });
  await save(P.A, '实验室检查', { lab_date: '2026-01-10', hb: 140 });
  await save(P.B, '实验室检查', { lab_date: '2026-03-05', hb: 118 });
  await save(P.A, '影像学检查', { img_date: '2026-01-11', instability: '1' });
  await save(P.B, '影像学检查', { img_date: '2026-03-06', instability: '0' });
  await save(P.A, '术后随访', { fu_date: '2026-04-01', odi: 30 });
  await save(P.A, '术后随访', { fu_date: '2026-07-01', odi: 50 });
  await save(P.B, '术后随访', { fu_date: '2026-06-01', odi: 20 });

  const sdv = await t.call(admin, 'PUT', '/api/business/crf/sdv', { crfDataRecordId: vitalsA, verified: true });
  expect(sdv.status, JSON.stringify(sdv.body)).toBe(200);
  const sign = await t.call(admin, 'PUT', '/api/v1/business/subject/sign', {
    subjectRecordId: P.A,
    password: TEST_ADMIN_PASSWORD,
  });
  expect(sign.status, JSON.stringify(sign.body)).toBe(200);
  const doubt = await t.call(admin, 'POST', '/api/business/doubt/open', {
    crfDataRecordId: vitalsB,
    itemName: 'sbp',
    doubtDescription: '请核实',
  });
  expect(doubt.status, JSON.stringify(doubt.body)).toBe(200);
});
afterAll(() => t.close());

const item = (crf: string, itemName: string, operator: string, values: string[] = [], stage?: string) =>
  ({
    kind: 'item',
    crfId: crfIds[crf]!,
    itemName,
    operator,
    values,
    stageId: stage ? stageIds[stage] : undefined,
  }) as SearchCondition;
const patient = (field: string, operator: string, values: string[] = []) =>
  ({ kind: 'patient', field, operator, values }) as SearchCondition;
const formState = (crf: string, state: string, operator = 'eq') =>
  ({ kind: 'formState', crfId: crfIds[crf]!, operator, values: [state] }) as SearchCondition;

async function run(token: string, groups: Array<{ join?: string; conditions: SearchCondition[] }>, extra: object = {}) {
  return t.call(token, 'POST', '/api/business/search/v2', {
    studyId,
    conditions: { join: 'and', groups },
    columns: [],
    pageNum: 1,
    pageSize: 100,
    ...extra,
  });
}

/** The letters of the patients a one-condition search finds. */
async function found(condition: SearchCondition, token = admin) {
  const res = await run(token, [{ conditions: [condition] }]);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const ids = (res.body.data.list as Array<{ subjectRecordId: number }>).map((r) => r.subjectRecordId);
  expect(res.body.data.total).toBe(ids.length);
  return (Object.keys(P) as Array<keyof typeof P>).filter((k) => ids.includes(P[k])).join('');
}

describe('the dictionary', () => {
  it('SRCH-04: dics offers patient fields, every viewable form with its items, options, units, stages and operators', async () => {
    const res = await t.call(admin, 'GET', `/api/business/search/dics?studyId=${studyId}`);
    expect(res.status).toBe(200);
    const dics = res.body.data;
    expect(dics.operators.map((o: { label: string }) => o.label)).toEqual([
      '等于',
      '不等于',
      '大于',
      '小于',
      '介于',
      '包含',
      '为空',
      '不为空',
      '属于',
    ]);
    expect(dics.formStates.map((s: { label: string }) => s.label)).toEqual([
      '未填',
      '已保存',
      '已提交',
      '存在质疑',
      '已签名',
      'SDV',
    ]);
    expect(dics.patientFields.map((f: { field: string }) => f.field)).toContain('subjectName');
    const vitals = dics.crfs.find((c: { title: string }) => c.title === '生命体征');
    expect(vitals).toMatchObject({ repeatable: false, stages: [{ stageId: stageIds['基线'], name: '基线' }] });
    expect(vitals.items.find((i: { name: string }) => i.name === 'sbp')).toMatchObject({
      title: '收缩压',
      kind: 'number',
      unit: 'mmHg',
      operators: ['eq', 'ne', 'gt', 'lt', 'between', 'empty', 'notEmpty'],
    });
    const demographics = dics.crfs.find((c: { title: string }) => c.title === '人口学资料');
    expect(demographics.items.find((i: { name: string }) => i.name === 'comorbid')).toMatchObject({
      kind: 'multiChoice',
      options: expect.arrayContaining([{ value: 'htn', label: '高血压' }]),
    });
    const followUp = dics.crfs.find((c: { title: string }) => c.title === '术后随访');
    expect(followUp.repeatable).toBe(true);
    // Uploads and list-group/table rows are not searchable.
    const names = dics.crfs.flatMap((c: { items: Array<{ name: string }> }) => c.items.map((i) => i.name));
    expect(names).not.toContain('xray');
    expect(names).not.toContain('implants');
    expect(names).not.toContain('lab_item');
    expect(dics.operatorsByKind.date.map((o: { label: string }) => o.label)).toContain('介于（日期范围）');
  });

  it('SRCH-04: export/crfs lists the forms with their stages', async () => {
    const res = await t.call(admin, 'GET', `/api/business/search/export/crfs?studyId=${studyId}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: { title: string }) => c.title)).toEqual([
      '人口学资料',
      '生命体征',
      '实验室检查',
      '影像学检查',
      '手术记录',
      '术后随访',
    ]);
  });
});

describe('operators × item kinds', () => {
  it.each([
    // number (int)
    ['number 等于', () => item('生命体征', 'sbp', 'eq', ['150']), 'A'],
    ['number 不等于', () => item('生命体征', 'sbp', 'ne', ['150']), 'B'],
    ['number 大于', () => item('生命体征', 'sbp', 'gt', ['130']), 'A'],
    ['number 小于', () => item('生命体征', 'sbp', 'lt', ['130']), 'B'],
    ['number 介于', () => item('生命体征', 'sbp', 'between', ['110', '150']), 'AB'],
    ['number 为空', () => item('生命体征', 'hr', 'empty'), 'BC'],
    ['number 不为空', () => item('生命体征', 'hr', 'notEmpty'), 'A'],
    ['number (real) 大于', () => item('实验室检查', 'hb', 'gt', ['120.5']), 'A'],
    // text
    ['text 等于', () => item('人口学资料', 'history_note', 'eq', ['无']), 'B'],
    ['text 不等于', () => item('人口学资料', 'history_note', 'ne', ['无']), 'A'],
    ['text 包含', () => item('人口学资料', 'history_note', 'contains', ['腰痛']), 'A'],
    ['text 包含 a LIKE wildcard literally', () => item('人口学资料', 'history_note', 'contains', ['50%']), 'A'],
    ['text 包含 _ literally', () => item('人口学资料', 'history_note', 'contains', ['_']), ''],
    ['text 为空', () => item('人口学资料', 'history_note', 'empty'), 'C'],
    ['text 不为空', () => item('人口学资料', 'history_note', 'notEmpty'), 'AB'],
    // date
    ['date 等于', () => item('实验室检查', 'lab_date', 'eq', ['2026-01-10']), 'A'],
    ['date 不等于', () => item('实验室检查', 'lab_date', 'ne', ['2026-01-10']), 'B'],
    ['date 晚于', () => item('实验室检查', 'lab_date', 'gt', ['2026-02-01']), 'B'],
    ['date 早于', () => item('实验室检查', 'lab_date', 'lt', ['2026-02-01']), 'A'],
    [
      'date 介于 (range, ends included)',
      () => item('实验室检查', 'lab_date', 'between', ['2026-01-10', '2026-03-05']),
      'AB',
    ],
    ['date 为空', () => item('实验室检查', 'lab_date', 'empty'), 'C'],
    // single choice (select)
    ['single choice 等于', () => item('人口学资料', 'ethnic', 'eq', ['han']), 'AC'],
    ['single choice 不等于', () => item('人口学资料', 'ethnic', 'ne', ['han']), 'B'],
    ['single choice 属于', () => item('人口学资料', 'ethnic', 'in', ['hui', 'man']), 'B'],
    ['single choice 为空', () => item('人口学资料', 'ethnic', 'empty'), ''],
    ['single choice 不为空', () => item('人口学资料', 'ethnic', 'notEmpty'), 'ABC'],
    // multiple choice (checkbox array, multiSelect comma text)
    ['checkbox 包含 (every option)', () => item('人口学资料', 'comorbid', 'contains', ['htn', 'dm']), 'A'],
    ['checkbox 包含 (not all ticked)', () => item('人口学资料', 'comorbid', 'contains', ['htn', 'op']), ''],
    ['checkbox 属于 (any option)', () => item('人口学资料', 'comorbid', 'in', ['dm', 'op']), 'AB'],
    ['checkbox 为空', () => item('人口学资料', 'comorbid', 'empty'), 'C'],
    ['multiSelect 包含', () => item('人口学资料', 'insurance', 'contains', ['self']), 'A'],
    ['multiSelect 不为空', () => item('人口学资料', 'insurance', 'notEmpty'), 'A'],
    // yes/no (radio 0 否 / 1 是)
    ['yes/no 等于 是', () => item('影像学检查', 'instability', 'eq', ['1']), 'A'],
    ['yes/no 等于 否', () => item('影像学检查', 'instability', 'eq', ['0']), 'B'],
    ['yes/no 不等于 是', () => item('影像学检查', 'instability', 'ne', ['1']), 'B'],
    ['yes/no 为空', () => item('影像学检查', 'instability', 'empty'), 'C'],
    // patient fields
    ['patient gender 等于 男', () => patient('gender', 'eq', ['1']), 'AC'],
    ['patient age 大于', () => patient('age', 'gt', ['60']), 'A'],
    ['patient birth 介于', () => patient('birth', 'between', ['1970-01-01', '1995-12-31']), 'BC'],
    ['patient name 包含', () => patient('subjectName', 'contains', ['李']), 'B'],
    ['patient ID number 等于 (by its keyed hash)', () => patient('idNumber', 'eq', [ID_NUMBER.toLowerCase()]), 'A'],
    ['patient ID number 为空', () => patient('idNumber', 'empty'), 'BC'],
    ['patient state 属于', () => patient('state', 'in', ['0', '1']), 'ABC'],
    ['patient createTime 等于 today', () => patient('createTime', 'eq', ['2026-11-22']), 'ABC'],
  ])('SRCH-03: %s', async (_name, condition, expected) => {
    expect(await found(condition())).toBe(expected);
  });

  it('SRCH-03: a value that does not fit the item kind or its options is refused with a message', async () => {
    const bad = await run(admin, [{ conditions: [item('生命体征', 'sbp', 'gt', ['abc'])] }]);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 400, msg: '收缩压：请输入数字' });
    const option = await run(admin, [{ conditions: [item('人口学资料', 'ethnic', 'eq', ['zz'])] }]);
    expect(option.body.msg).toBe('民族：选项不存在');
    const op = await run(admin, [{ conditions: [item('人口学资料', 'comorbid', 'gt', ['1'])] }]);
    expect(op.body.msg).toBe('合并症：该字段不支持“大于”');
  });
});

describe('groups, repeatable records, stages and form states', () => {
  it('SRCH-03: conditions within a group and groups join with 且/或', async () => {
    const male = patient('gender', 'eq', ['1']);
    const high = item('生命体征', 'sbp', 'gt', ['130']);
    const hui = item('人口学资料', 'ethnic', 'eq', ['hui']);
    const ids = async (groups: Parameters<typeof run>[1], join = 'and') => {
      const res = await t.call(admin, 'POST', '/api/business/search/v2', {
        studyId,
        conditions: { join, groups },
        columns: [],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return new Set((res.body.data.list as Array<{ subjectRecordId: number }>).map((r) => r.subjectRecordId));
    };
    expect(await ids([{ join: 'and', conditions: [male, high] }])).toEqual(new Set([P.A]));
    expect(await ids([{ join: 'or', conditions: [male, high] }])).toEqual(new Set([P.A, P.C]));
    // (男 且 SBP > 130) 或 (回族)
    expect(await ids([{ join: 'and', conditions: [male, high] }, { conditions: [hui] }], 'or')).toEqual(
      new Set([P.A, P.B]),
    );
    expect(await ids([{ join: 'and', conditions: [male, high] }, { conditions: [hui] }], 'and')).toEqual(new Set());
    // No condition: every live patient of the study.
    expect((await ids([])).size).toBe(3);
  });

  it('SRCH-03: a patient matches when any record of a repeatable form matches', async () => {
    expect(await found(item('术后随访', 'odi', 'gt', ['40']))).toBe('A');
    expect(await found(item('术后随访', 'odi', 'lt', ['40']))).toBe('AB');
    expect(await found(item('术后随访', 'odi', 'between', ['25', '35']))).toBe('A');
  });

  it('SRCH-03: a stage-scoped condition matches within the form of that stage; a stage the form is not in is refused', async () => {
    expect(await found(item('术后随访', 'odi', 'gt', ['40'], '术后随访'))).toBe('A');
    expect(await found(item('生命体征', 'sbp', 'gt', ['100'], '基线'))).toBe('AB');
    const wrong = await run(admin, [{ conditions: [item('生命体征', 'sbp', 'gt', ['100'], '手术')] }]);
    expect(wrong.status).toBe(400);
    expect(wrong.body.msg).toBe('表单“生命体征”不属于所选阶段');
  });

  it.each([
    ['未填', () => formState('生命体征', 'notFilled'), 'C'],
    ['已保存', () => formState('生命体征', 'saved'), 'B'],
    ['已提交', () => formState('生命体征', 'submitted'), 'A'],
    // B's query raised by hand; A's SBP 150 is above the reference range, which raises a system query.
    ['存在质疑', () => formState('生命体征', 'doubt'), 'AB'],
    ['存在质疑 (none on the form)', () => formState('实验室检查', 'doubt'), ''],
    ['已签名', () => formState('生命体征', 'signed'), 'A'],
    ['SDV', () => formState('生命体征', 'sdv'), 'A'],
    ['不等于 已提交', () => formState('生命体征', 'submitted', 'ne'), 'BC'],
    ['已签名 needs a record of the form', () => formState('手术记录', 'signed'), ''],
  ])('SRCH-03: form state %s', async (_name, condition, expected) => {
    expect(await found(condition())).toBe(expected);
  });
});

describe('results and paging', () => {
  it('SRCH-03: pages of the chosen columns with the count; a repeatable form shows every record, joined by ；', async () => {
    const body = {
      studyId,
      conditions: { groups: [] },
      columns: [
        { kind: 'patient', field: 'subjectName' },
        { kind: 'patient', field: 'gender' },
        { kind: 'item', crfId: crfIds['术后随访'], itemName: 'odi' },
        { kind: 'item', crfId: crfIds['人口学资料'], itemName: 'comorbid' },
      ],
      pageNum: 1,
      pageSize: 2,
    };
    const first = await t.call(admin, 'POST', '/api/business/search/v2', body);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data.total).toBe(3);
    expect(first.body.data.list).toHaveLength(2);
    expect(first.body.data.columns.map((c: { title: string }) => c.title)).toEqual([
      '患者姓名',
      '性别',
      'ODI评分',
      '合并症',
    ]);
    const second = await t.call(admin, 'POST', '/api/business/search/v2', { ...body, pageNum: 2 });
    expect(second.body.data.list).toHaveLength(1);
    const beyond = await t.call(admin, 'POST', '/api/business/search/v2', { ...body, pageNum: 3 });
    expect(beyond.body.data).toMatchObject({ total: 3, list: [] });
    const rows = [...first.body.data.list, ...second.body.data.list] as Array<{
      subjectRecordId: number;
      identificationCode: string;
      cells: Record<string, string>;
    }>;
    const a = rows.find((r) => r.subjectRecordId === P.A)!;
    expect(a.identificationCode).toBeTruthy();
    expect(a.cells).toEqual({
      'p.subjectName': '张三',
      'p.gender': '男',
      [`c${crfIds['术后随访']}.odi`]: '30 %；50 %',
      [`c${crfIds['人口学资料']}.comorbid`]: '高血压、糖尿病',
    });
    // Newest first, as the patient list.
    expect(rows.map((r) => r.subjectRecordId)).toEqual([P.C, P.B, P.A]);
  });
});

describe('permissions', () => {
  let vitalsOnly: string;
  let withIdentifiers: string;
  beforeAll(async () => {
    vitalsOnly = await addStudyMember(t, admin, studyId, '13300000001', {
      permissions: [crfKey(crfIds['生命体征']!, 'view')],
    });
    withIdentifiers = await addStudyMember(t, admin, studyId, '13300000002', {
      permissions: [crfKey(crfIds['生命体征']!, 'view'), buttonKey('business.subject.identifiers')],
    });
  });

  it('SRCH-02: a member without view permission on a form does not find it in dics or export/crfs, and a condition or a column on it is refused', async () => {
    const dics = (await t.call(vitalsOnly, 'GET', `/api/business/search/dics?studyId=${studyId}`)).body.data;
    expect(dics.crfs.map((c: { title: string }) => c.title)).toEqual(['生命体征']);
    const exportable = (await t.call(vitalsOnly, 'GET', `/api/business/search/export/crfs?studyId=${studyId}`)).body
      .data;
    expect(exportable.map((c: { title: string }) => c.title)).toEqual(['生命体征']);

    const condition = await run(vitalsOnly, [{ conditions: [item('人口学资料', 'ethnic', 'eq', ['han'])] }]);
    expect(condition.status).toBe(403);
    expect(condition.body).toMatchObject({ code: 403, msg: '无权检索或显示该表单的数据（没有该表单的查看权限）' });
    const column = await run(vitalsOnly, [], {
      columns: [{ kind: 'item', crfId: crfIds['人口学资料'], itemName: 'ethnic' }],
    });
    expect(column.status).toBe(403);
    const state = await run(vitalsOnly, [{ conditions: [formState('人口学资料', 'submitted')] }]);
    expect(state.status).toBe(403);
    expect(await found(item('生命体征', 'sbp', 'gt', ['130']), vitalsOnly)).toBe('A');
  });

  it('SRCH-02: without the identifier permission no names, birth dates, mobiles or ID numbers in dics, conditions or results', async () => {
    const dics = (await t.call(vitalsOnly, 'GET', `/api/business/search/dics?studyId=${studyId}`)).body.data;
    const fields = dics.patientFields.map((f: { field: string }) => f.field);
    for (const f of ['subjectName', 'birth', 'mobile', 'idNumber']) expect(fields).not.toContain(f);
    expect(fields).toEqual(expect.arrayContaining(['identificationCode', 'gender', 'age']));
    for (const f of ['subjectName', 'mobile', 'idNumber', 'birth']) {
      const cond = await run(vitalsOnly, [{ conditions: [patient(f, 'notEmpty')] }]);
      expect(cond.status, f).toBe(403);
      expect(cond.body.msg).toBe('无权按患者身份信息检索或显示（需要“查看患者身份信息”权限）');
      const col = await run(vitalsOnly, [], { columns: [{ kind: 'patient', field: f }] });
      expect(col.status, f).toBe(403);
    }
    const all = await run(vitalsOnly, [], {
      columns: [
        { kind: 'patient', field: 'identificationCode' },
        { kind: 'patient', field: 'age' },
        { kind: 'item', crfId: crfIds['生命体征'], itemName: 'sbp' },
      ],
    });
    expect(all.status).toBe(200);
    const text = JSON.stringify(all.body);
    for (const secret of ['张三', '李四', '王五', '13800000009', '1958-03-02', ID_NUMBER]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('150 mmHg');

    const clear = await run(withIdentifiers, [], { columns: [{ kind: 'patient', field: 'idNumber' }] });
    expect(clear.status).toBe(200);
    expect(JSON.stringify(clear.body)).toContain(ID_NUMBER);
  });

  it('SRCH-02: a user who is not staff of the study gets 403 on every search call', async () => {
    const other = await t.call(admin, 'POST', '/api/business/study', {
      studyName: '另一项研究',
      studyCode: 'SRCH-OTHER',
    });
    expect(other.status, JSON.stringify(other.body)).toBe(200);
    const stranger = await addStudyMember(t, admin, other.body.data.id, '13300000003', { permissions: [] });
    for (const url of ['dics', 'export/crfs', 'all_templates']) {
      expect((await t.call(stranger, 'GET', `/api/business/search/${url}?studyId=${studyId}`)).status, url).toBe(403);
    }
    expect((await run(stranger, [])).status).toBe(403);
    const template = await t.call(stranger, 'POST', '/api/business/search/template', {
      studyId,
      name: 'x',
      conditions: { groups: [] },
      columns: [],
    });
    expect(template.status).toBe(403);
  });
});

describe('SQL injection', () => {
  it('SRCH-03: variable names that are not plain names are refused before any SQL; unknown names are refused by the dictionary', async () => {
    for (const itemName of ["sbp' or '1'='1", 'sbp"); drop table subjects; --', 'sbp ->> 0']) {
      const res = await run(admin, [{ conditions: [item('生命体征', itemName, 'eq', ['1'])] }]);
      expect(res.status, itemName).toBe(400);
    }
    const unknown = await run(admin, [{ conditions: [item('生命体征', 'sbp--', 'eq', ['1'])] }]);
    expect(unknown.status).toBe(400);
    expect(unknown.body.msg).toBe('表单“生命体征”中没有可检索的变量 sbp--');
    const field = await run(admin, [{ conditions: [patient('subject_name; --', 'eq', ['x'])] }]);
    expect(field.status).toBe(400);
  });

  it('SRCH-03: values are bound parameters: quotes and SQL in them match nothing and change nothing', async () => {
    for (const value of ["' or '1'='1", "无'); delete from subjects; --", '%', "\\'"]) {
      expect(await found(item('人口学资料', 'history_note', 'eq', [value])), value).toBe('');
      expect(await found(patient('identificationCode', 'contains', [value])), value).toBe('');
    }
    expect((await run(admin, [{ conditions: [item('生命体征', 'sbp', 'eq', ['1 or 1=1'])] }])).status).toBe(400);
    expect(
      (await run(admin, [{ conditions: [item('实验室检查', 'lab_date', 'gt', ["2026-01-01' --"])] }])).status,
    ).toBe(400);
    const [{ n }] = (await t.db.select({ n: count() }).from(subjects).where(eq(subjects.studyId, studyId))) as [
      { n: number },
    ];
    expect(Number(n)).toBe(3);
  });
});

describe('saved templates', () => {
  let member: string;
  let other: string;
  const body = (name: string, shared: boolean) => ({
    studyId,
    name,
    shared,
    conditions: { join: 'or', groups: [{ join: 'and', conditions: [item('生命体征', 'sbp', 'gt', ['130'])] }] },
    columns: [{ kind: 'item', crfId: crfIds['生命体征'], itemName: 'sbp' }],
  });
  beforeAll(async () => {
    const permissions = [crfKey(crfIds['生命体征']!, 'view')];
    member = await addStudyMember(t, admin, studyId, '13300000011', { permissions });
    other = await addStudyMember(t, admin, studyId, '13300000012', { permissions });
  });

  it('SRCH-04: all_templates answers mine and those shared in the study, with the same conditions and columns', async () => {
    const mine = await t.call(member, 'POST', '/api/business/search/template', body('我的高血压', false));
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    const shared = await t.call(member, 'POST', '/api/business/search/template', body('共享高血压', true));
    expect(shared.status).toBe(200);

    const own = (await t.call(member, 'GET', `/api/business/search/all_templates?studyId=${studyId}`)).body.data;
    expect(own.map((x: { name: string }) => x.name)).toEqual(['共享高血压', '我的高血压']);
    expect(own[1]).toMatchObject({ mine: true, canDelete: true, shared: false, ownerName: '成员011' });
    expect(own[1].conditions.groups[0].conditions[0]).toMatchObject({
      itemName: 'sbp',
      operator: 'gt',
      values: ['130'],
    });

    const theirs = (await t.call(other, 'GET', `/api/business/search/all_templates?studyId=${studyId}`)).body.data;
    expect(theirs.map((x: { name: string }) => x.name)).toEqual(['共享高血压']);
    expect(theirs[0]).toMatchObject({ mine: false, canDelete: false });
  });

  it('SRCH-04: a template is checked as a search is: bad shapes and forms the author may not view are refused', async () => {
    const hidden = await t.call(member, 'POST', '/api/business/search/template', {
      ...body('看不到的表单', false),
      columns: [{ kind: 'item', crfId: crfIds['人口学资料'], itemName: 'ethnic' }],
    });
    expect(hidden.status).toBe(403);
    const blank = await t.call(member, 'POST', '/api/business/search/template', { ...body(' ', false) });
    expect(blank.status).toBe(400);
    expect(blank.body.msg).toBe('请输入模板名称');
  });

  it('SRCH-04: only the owner or a study manager deletes a template; a private one is not even found by others', async () => {
    const list = (await t.call(member, 'GET', `/api/business/search/all_templates?studyId=${studyId}`)).body
      .data as Array<{
      id: number;
      name: string;
    }>;
    const shared = list.find((x) => x.name === '共享高血压')!;
    const mine = list.find((x) => x.name === '我的高血压')!;
    const denied = await t.call(other, 'DELETE', `/api/business/search/template/${shared.id}`);
    expect(denied.status).toBe(403);
    expect(denied.body.msg).toBe('只有模板的创建人或项目管理员可以删除该模板');
    expect((await t.call(other, 'DELETE', `/api/business/search/template/${mine.id}`)).status).toBe(404);
    expect((await t.call(member, 'DELETE', `/api/business/search/template/${mine.id}`)).status).toBe(200);
    expect((await t.call(admin, 'DELETE', `/api/business/search/template/${shared.id}`)).status).toBe(200);
    const left = await t.db.select().from(searchTemplates).where(eq(searchTemplates.studyId, studyId));
    expect(left).toEqual([]);
  });
});
