import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonKey, crfKey, type SearchCondition } from '@ecrf/core';
import { crfStages, searchTemplates, storedFiles, subjects } from '../../db/schema/index.js';
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
 * and, for list groups, tables, uploads and units (the form 术后用药 is added to the demo as a repeatable form of the
 * stage 术后随访, its list group 用药记录 holding medicines):
 *   A 术后用药 record 1: 塞来昔布 200 mg 口服 非甾体 from 2026-04-02 (药盒照片 药盒-塞来昔布.jpg), 甲钴胺 0.5 mg 口服
 *     神经营养 (no start date); record 2: 曲马多 0.1 g (= 100 mg) 口服 阿片类 (处方 曲马多处方.pdf).
 *     其他检验 (a table): 血钾 4.1 at 2026-01-10, 血钠 140. Hb 140 g/L. 正侧位片 腰椎正侧位.png (its key)
 *   B 术后用药: 塞来昔布 100 mg 口服 非甾体 from 2026-06-01, 帕瑞昔布 40 mg 静脉 非甾体.
 *     其他检验: 血钾 3.2. Hb 11.8 g/dL (= 118 g/L). 正侧位片 B正位片.png (the download address); 化验单 a URL
 *   C none of these
 */
let t: TestApp;
let admin: string;
let studyId: number;
const crfIds: Record<string, number> = {};
const stageIds: Record<string, number> = {};
const P: Record<'A' | 'B' | 'C', number> = { A: 0, B: 0, C: 0 };
const ID_NUMBER = '11010519491231002X';
const FILE = { box: 'a'.repeat(32), rx: 'b'.repeat(32), xrayA: 'c'.repeat(32), xrayB: 'd'.repeat(32) };
const FILE_NAMES: Record<keyof typeof FILE, string> = {
  box: '药盒-塞来昔布.jpg',
  rx: '曲马多处方.pdf',
  xrayA: '腰椎正侧位.png',
  xrayB: 'B正位片.png',
};
const image = (dialogImgUrl: string) => [{ uploadTime: '2026-04-02 10:00:00', remarks: '', dialogImgUrl }];

/** 术后用药: a repeatable form whose list group 用药记录 has a column of every searchable kind. */
const MEDICATION = {
  title: '术后用药',
  option: {},
  children: [
    {
      name: 'meds',
      title: '用药记录',
      type: 'listGroup',
      option: {},
      children: [
        { name: 'med_name', title: '药物名称', type: 'input', option: {}, children: [] },
        { name: 'med_dose', title: '剂量', type: 'real', option: { units: 'mg,g' }, children: [] },
        {
          name: 'med_route',
          title: '给药途径',
          type: 'radio',
          option: { optionsValue: 'oral,iv', optionsText: '口服,静脉' },
          children: [],
        },
        {
          name: 'med_class',
          title: '药物类别',
          type: 'checkbox',
          option: { optionsValue: 'nsaid,opioid,neuro', optionsText: '非甾体抗炎药,阿片类,神经营养' },
          children: [],
        },
        { name: 'med_start', title: '开始日期', type: 'date', option: {}, children: [] },
        { name: 'med_box', title: '药盒照片', type: 'imageUpload', option: {}, children: [] },
        { name: 'med_rx', title: '处方', type: 'fileUpload', option: {}, children: [] },
      ],
    },
  ],
};

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
  const medication = await t.call(admin, 'POST', '/api/system/crf', { studyId, definition: MEDICATION });
  expect(medication.status, JSON.stringify(medication.body)).toBe(200);
  crfIds['术后用药'] = medication.body.data.crfs[0].id as number;
  const placed = await t.call(admin, 'POST', '/api/business/crf_menu/crf_stage/crf/import', {
    crfStageId: stageIds['术后随访'],
    crfIds: [crfIds['术后用药']],
    repeat: 0,
  });
  expect(placed.status, JSON.stringify(placed.body)).toBe(200);
  await t.db.insert(storedFiles).values(
    (Object.keys(FILE) as Array<keyof typeof FILE>).map((k) => ({
      fileKey: FILE[k],
      studyId,
      fileName: FILE_NAMES[k],
      contentType: 'application/octet-stream',
      size: 1,
      sha256: '0'.repeat(64),
    })),
  );

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
  await save(P.A, '实验室检查', {
    lab_date: '2026-01-10',
    hb: 140,
    other_labs: [
      { lab_item: '血钾', lab_value: 4.1, lab_unit: 'mmol/L', lab_at: '2026-01-10 08:00:00' },
      { lab_item: '血钠', lab_value: 140 },
    ],
  });
  // Entered in the unit selector's second unit: 11.8 g/dL is 118 g/L.
  await save(P.B, '实验室检查', {
    lab_date: '2026-03-05',
    hb: 11.8,
    hb_unit: 'g/dL',
    other_labs: [{ lab_item: '血钾', lab_value: 3.2 }],
    lab_report: 'https://lis.example.org/reports/lab-2026.pdf',
  });
  await save(P.A, '影像学检查', { img_date: '2026-01-11', instability: '1', xray: image(FILE.xrayA) });
  await save(P.B, '影像学检查', {
    img_date: '2026-03-06',
    instability: '0',
    xray: image(`/api/v1/fileupload/downfile?fileKey=${FILE.xrayB}`),
  });
  await save(P.A, '术后用药', {
    meds: [
      {
        med_name: '塞来昔布',
        med_dose: 200,
        med_route: 'oral',
        med_class: ['nsaid'],
        med_start: '2026-04-02',
        med_box: image(FILE.box),
      },
      { med_name: '甲钴胺', med_dose: 0.5, med_dose_unit: 'mg', med_route: 'oral', med_class: ['neuro'] },
    ],
  });
  await save(P.A, '术后用药', {
    meds: [
      {
        med_name: '曲马多',
        med_dose: 0.1,
        med_dose_unit: 'g',
        med_route: 'oral',
        med_class: ['opioid'],
        med_rx: FILE.rx,
      },
    ],
  });
  await save(P.B, '术后用药', {
    meds: [
      { med_name: '塞来昔布', med_dose: 100, med_route: 'oral', med_class: ['nsaid'], med_start: '2026-06-01' },
      { med_name: '帕瑞昔布', med_dose: 40, med_route: 'iv', med_class: ['nsaid'] },
    ],
  });
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
      '缺失原因为',
      '已标记缺失',
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
      operators: ['eq', 'ne', 'gt', 'lt', 'between', 'empty', 'notEmpty', 'missing', 'missingAny'],
    });
    const demographics = dics.crfs.find((c: { title: string }) => c.title === '人口学资料');
    expect(demographics.items.find((i: { name: string }) => i.name === 'comorbid')).toMatchObject({
      kind: 'multiChoice',
      options: expect.arrayContaining([{ value: 'htn', label: '高血压' }]),
    });
    const followUp = dics.crfs.find((c: { title: string }) => c.title === '术后随访');
    expect(followUp.repeatable).toBe(true);
    // A list group or table is searched by its columns (the group itself is no item); uploads by their files.
    const names = dics.crfs.flatMap((c: { items: Array<{ name: string }> }) => c.items.map((i) => i.name));
    expect(names).not.toContain('implants');
    expect(names).not.toContain('other_labs');
    expect(names).toEqual(expect.arrayContaining(['implant_name', 'lab_item', 'xray', 'med_name']));
    expect(dics.operatorsByKind.date.map((o: { label: string }) => o.label)).toContain('介于（日期范围）');
    expect(dics.operatorsByKind.file.map((o: { label: string }) => o.label)).toEqual(['文件名包含', '为空', '不为空']);
    expect(dics.rowSeparator).toBe('; ');
  });

  it('SRCH-04: list-group and table columns come with their group and its path; uploads are files; a second unit is listed', async () => {
    const dics = (await t.call(admin, 'GET', `/api/business/search/dics?studyId=${studyId}`)).body.data;
    const items = (title: string) =>
      dics.crfs.find((c: { title: string }) => c.title === title).items as Array<Record<string, unknown>>;
    const medication = items('术后用药');
    expect(medication.map((i) => i.path)).toEqual([
      '用药记录 › 药物名称',
      '用药记录 › 剂量',
      '用药记录 › 给药途径',
      '用药记录 › 药物类别',
      '用药记录 › 开始日期',
      '用药记录 › 药盒照片',
      '用药记录 › 处方',
    ]);
    expect(medication.map((i) => i.kind)).toEqual(['text', 'number', 'choice', 'multiChoice', 'date', 'file', 'file']);
    expect(medication[0]).toMatchObject({
      name: 'med_name',
      title: '药物名称',
      group: { name: 'meds', title: '用药记录', type: 'listGroup' },
    });
    expect(medication[1]).toMatchObject({ unit: 'mg', units: ['mg', 'g'] });
    expect(medication[5]).toMatchObject({ type: 'imageUpload', operators: ['contains', 'empty', 'notEmpty'] });
    const labs = items('实验室检查');
    expect(labs.find((i) => i.name === 'lab_value')).toMatchObject({
      path: '其他检验 › 结果',
      kind: 'number',
      group: { name: 'other_labs', title: '其他检验', type: 'table' },
    });
    expect(labs.find((i) => i.name === 'hb')).toMatchObject({ path: '血红蛋白', group: null, units: ['g/L', 'g/dL'] });
    expect(labs.find((i) => i.name === 'lab_report')).toMatchObject({ kind: 'file', type: 'fileUpload' });
    expect(items('手术记录').find((i) => i.name === 'implant_qty')).toMatchObject({ path: '植入物 › 数量' });
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
      '术后用药',
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

describe('list groups, tables, uploads and units', () => {
  const med = (itemName: string, operator: string, values: string[] = []) =>
    item('术后用药', itemName, operator, values);
  const lab = (itemName: string, operator: string, values: string[] = []) =>
    item('实验室检查', itemName, operator, values);

  it.each([
    // text column (list group), any row of any record
    ['list text 等于', () => med('med_name', 'eq', ['塞来昔布']), 'AB'],
    ['list text 等于 (a row of the second record)', () => med('med_name', 'eq', ['曲马多']), 'A'],
    ['list text 不等于', () => med('med_name', 'ne', ['塞来昔布']), 'AB'],
    ['list text 包含', () => med('med_name', 'contains', ['瑞昔']), 'B'],
    ['list text 为空 (no row holds a value)', () => med('med_name', 'empty'), 'C'],
    ['list text 不为空', () => med('med_name', 'notEmpty'), 'AB'],
    // number column with a second unit: compared in the main unit (mg); 0.1 g is 100 mg
    ['list number 大于', () => med('med_dose', 'gt', ['150']), 'A'],
    ['list number 小于', () => med('med_dose', 'lt', ['50']), 'AB'],
    ['list number 等于 (0.1 g = 100 mg)', () => med('med_dose', 'eq', ['100']), 'AB'],
    ['list number 不等于', () => med('med_dose', 'ne', ['100']), 'AB'],
    ['list number 介于 (0.1 g = 100 mg)', () => med('med_dose', 'between', ['90', '110']), 'AB'],
    ['list number 介于 (a value in g is not compared as mg)', () => med('med_dose', 'between', ['0.05', '0.2']), ''],
    ['list number 为空', () => med('med_dose', 'empty'), 'C'],
    // single choice column
    ['list choice 等于', () => med('med_route', 'eq', ['iv']), 'B'],
    ['list choice 不等于', () => med('med_route', 'ne', ['oral']), 'B'],
    ['list choice 属于', () => med('med_route', 'in', ['iv']), 'B'],
    ['list choice 不为空', () => med('med_route', 'notEmpty'), 'AB'],
    // multiple choice column
    ['list checkbox 包含', () => med('med_class', 'contains', ['nsaid']), 'AB'],
    ['list checkbox 属于', () => med('med_class', 'in', ['opioid', 'neuro']), 'A'],
    ['list checkbox 为空', () => med('med_class', 'empty'), 'C'],
    // date column
    ['list date 晚于', () => med('med_start', 'gt', ['2026-05-01']), 'B'],
    ['list date 早于', () => med('med_start', 'lt', ['2026-05-01']), 'A'],
    ['list date 等于', () => med('med_start', 'eq', ['2026-04-02']), 'A'],
    ['list date 介于', () => med('med_start', 'between', ['2026-04-01', '2026-04-30']), 'A'],
    ['list date 不为空', () => med('med_start', 'notEmpty'), 'AB'],
    // image and file columns
    ['list image 不为空', () => med('med_box', 'notEmpty'), 'A'],
    ['list image 为空', () => med('med_box', 'empty'), 'BC'],
    ['list image 文件名包含', () => med('med_box', 'contains', ['塞来昔布']), 'A'],
    ['list image 文件名包含 (no such file)', () => med('med_box', 'contains', ['曲马多']), ''],
    ['list file 文件名包含', () => med('med_rx', 'contains', ['处方']), 'A'],
    ['list file 文件名包含 % literally', () => med('med_rx', 'contains', ['%']), ''],
    ['list file 不为空', () => med('med_rx', 'notEmpty'), 'A'],
    // table columns
    ['table text 等于', () => lab('lab_item', 'eq', ['血钾']), 'AB'],
    ['table number 小于', () => lab('lab_value', 'lt', ['3.5']), 'B'],
    ['table number 大于', () => lab('lab_value', 'gt', ['100']), 'A'],
    ['table date-time 晚于', () => lab('lab_at', 'gt', ['2026-01-01']), 'A'],
    ['table text 为空', () => lab('lab_unit', 'empty'), 'BC'],
    // uploads of the form itself: an image by its key and by the download address, a file by a URL
    ['image 不为空', () => item('影像学检查', 'xray', 'notEmpty'), 'AB'],
    ['image 为空', () => item('影像学检查', 'xray', 'empty'), 'C'],
    ['image 文件名包含 (a stored key)', () => item('影像学检查', 'xray', 'contains', ['正侧位']), 'A'],
    ['image 文件名包含 (the download address)', () => item('影像学检查', 'xray', 'contains', ['b正位']), 'B'],
    ['file 文件名包含 (the last part of a URL)', () => lab('lab_report', 'contains', ['LAB-2026']), 'B'],
    ['file 为空', () => lab('lab_report', 'empty'), 'AC'],
    // a second unit on an item of the form: 11.8 g/dL is 118 g/L
    ['unit: 大于 in the main unit', () => lab('hb', 'gt', ['100']), 'AB'],
    ['unit: 介于 in the main unit', () => lab('hb', 'between', ['110', '125']), 'B'],
    ['unit: 等于 in the main unit', () => lab('hb', 'eq', ['118']), 'B'],
    ['unit: 小于 (a g/dL value is not read as g/L)', () => lab('hb', 'lt', ['20']), ''],
  ])('SRCH-03: %s', async (_name, condition, expected) => {
    expect(await found(condition())).toBe(expected);
  });

  /** The letters of the patients a search of groups finds. */
  async function foundGroups(groups: Parameters<typeof run>[1], join = 'and') {
    const res = await t.call(admin, 'POST', '/api/business/search/v2', {
      studyId,
      conditions: { join, groups },
      columns: [],
      pageSize: 100,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const ids = (res.body.data.list as Array<{ subjectRecordId: number }>).map((r) => r.subjectRecordId);
    return (Object.keys(P) as Array<keyof typeof P>).filter((k) => ids.includes(P[k])).join('');
  }

  it('SRCH-03: conditions on one list group joined by 且 in one condition group hold in the same row; in two groups, or joined by 或, each in any row', async () => {
    const celecoxib = med('med_name', 'eq', ['塞来昔布']);
    const iv = med('med_route', 'eq', ['iv']);
    // B has 塞来昔布 (口服) and 帕瑞昔布 (静脉): no one row is both.
    expect(await foundGroups([{ join: 'and', conditions: [celecoxib, iv] }])).toBe('');
    expect(await foundGroups([{ conditions: [celecoxib] }, { conditions: [iv] }], 'and')).toBe('B');
    expect(await foundGroups([{ join: 'or', conditions: [celecoxib, iv] }])).toBe('AB');
    expect(await foundGroups([{ join: 'and', conditions: [celecoxib, med('med_dose', 'gt', ['150'])] }])).toBe('A');
    expect(
      await foundGroups([
        { join: 'and', conditions: [med('med_name', 'contains', ['昔布']), iv, med('med_dose', 'lt', ['50'])] },
      ]),
    ).toBe('B');
    // A patient condition in the same group does not break the row bundle.
    expect(await foundGroups([{ join: 'and', conditions: [patient('gender', 'eq', ['0']), celecoxib, iv] }])).toBe('');
  });

  it('SRCH-03: the same row is a row of one record: a repeatable form’s rows of two records never pair up', async () => {
    // A: 曲马多 (100 mg) in record 2, 200 mg (塞来昔布) in record 1.
    expect(
      await foundGroups([
        { join: 'and', conditions: [med('med_name', 'eq', ['曲马多']), med('med_dose', 'gt', ['150'])] },
      ]),
    ).toBe('');
    expect(
      await foundGroups([
        { join: 'and', conditions: [med('med_name', 'eq', ['曲马多']), med('med_dose', 'eq', ['100'])] },
      ]),
    ).toBe('A');
    expect(
      await foundGroups([
        { join: 'and', conditions: [med('med_name', 'eq', ['曲马多']), med('med_rx', 'contains', ['曲马多'])] },
      ]),
    ).toBe('A');
  });

  it('SRCH-03: in a same-row group 为空 is judged on that row; 为空 alone (or with only other 为空) means no row holds a value', async () => {
    expect(
      await foundGroups([{ join: 'and', conditions: [med('med_name', 'eq', ['甲钴胺']), med('med_start', 'empty')] }]),
    ).toBe('A');
    expect(
      await foundGroups([
        { join: 'and', conditions: [med('med_name', 'eq', ['塞来昔布']), med('med_start', 'empty')] },
      ]),
    ).toBe('');
    expect(await foundGroups([{ join: 'and', conditions: [med('med_box', 'empty'), med('med_rx', 'empty')] }])).toBe(
      'BC',
    );
  });

  it('SRCH-03: tables: two conditions on one table in one group match within a row', async () => {
    const potassium = lab('lab_item', 'eq', ['血钾']);
    const high = lab('lab_value', 'gt', ['100']);
    // A: 血钾 4.1 and 血钠 140 in two rows.
    expect(await foundGroups([{ join: 'and', conditions: [potassium, high] }])).toBe('');
    expect(await foundGroups([{ conditions: [potassium] }, { conditions: [high] }], 'and')).toBe('A');
    expect(await foundGroups([{ join: 'and', conditions: [lab('lab_item', 'eq', ['血钠']), high] }])).toBe('A');
  });

  it('SRCH-03: a value that does not fit a column is refused with the column’s path', async () => {
    const bad = await run(admin, [{ conditions: [med('med_dose', 'gt', ['多'])] }]);
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toBe('用药记录 › 剂量：请输入数字');
    const op = await run(admin, [{ conditions: [med('med_box', 'eq', ['x'])] }]);
    expect(op.body.msg).toBe('用药记录 › 药盒照片：该字段不支持“等于”');
    const group = await run(admin, [{ conditions: [med('meds', 'notEmpty')] }]);
    expect(group.status).toBe(400);
    expect(group.body.msg).toBe('表单“术后用药”中没有可检索的变量 meds');
  });

  it('SRCH-03: result columns of list-group columns join the rows by “; ” and the records by “；”; uploads read as file names; a value shows its own unit', async () => {
    const res = await run(admin, [], {
      columns: [
        { kind: 'item', crfId: crfIds['术后用药'], itemName: 'med_name' },
        { kind: 'item', crfId: crfIds['术后用药'], itemName: 'med_dose' },
        { kind: 'item', crfId: crfIds['术后用药'], itemName: 'med_class' },
        { kind: 'item', crfId: crfIds['术后用药'], itemName: 'med_box' },
        { kind: 'item', crfId: crfIds['实验室检查'], itemName: 'lab_item' },
        { kind: 'item', crfId: crfIds['实验室检查'], itemName: 'hb' },
        { kind: 'item', crfId: crfIds['影像学检查'], itemName: 'xray' },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.columns.map((c: { title: string }) => c.title)).toEqual([
      '用药记录 › 药物名称',
      '用药记录 › 剂量',
      '用药记录 › 药物类别',
      '用药记录 › 药盒照片',
      '其他检验 › 检验项目',
      '血红蛋白',
      '正侧位片',
    ]);
    const cells = (k: keyof typeof P) =>
      Object.values(
        (res.body.data.list as Array<{ subjectRecordId: number; cells: Record<string, string> }>).find(
          (r) => r.subjectRecordId === P[k],
        )!.cells,
      );
    expect(cells('A')).toEqual([
      '塞来昔布; 甲钴胺；曲马多',
      '200 mg; 0.5 mg；0.1 g',
      '非甾体抗炎药; 神经营养；阿片类',
      '药盒-塞来昔布.jpg',
      '血钾; 血钠',
      '140 g/L',
      '腰椎正侧位.png',
    ]);
    expect(cells('B')).toEqual([
      '塞来昔布; 帕瑞昔布',
      '100 mg; 40 mg',
      '非甾体抗炎药; 非甾体抗炎药',
      '',
      '血钾',
      '11.8 g/dL',
      'B正位片.png',
    ]);
    expect(cells('C')).toEqual(['', '', '', '', '', '', '']);
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

  it('SRCH-02: list-group and table columns and uploads of a form the member may not view are neither offered nor searched nor shown', async () => {
    const medsOnly = await addStudyMember(t, admin, studyId, '13300000004', {
      permissions: [crfKey(crfIds['术后用药']!, 'view')],
    });
    const dics = (await t.call(medsOnly, 'GET', `/api/business/search/dics?studyId=${studyId}`)).body.data;
    const names = dics.crfs.flatMap((c: { items: Array<{ name: string }> }) => c.items.map((i) => i.name));
    expect(names).toContain('med_name');
    for (const hidden of ['lab_item', 'lab_value', 'implant_name', 'xray', 'lab_report']) {
      expect(names).not.toContain(hidden);
    }
    const vitalsNames = (
      await t.call(vitalsOnly, 'GET', `/api/business/search/dics?studyId=${studyId}`)
    ).body.data.crfs.flatMap((c: { items: Array<{ name: string }> }) => c.items.map((i) => i.name));
    expect(vitalsNames).not.toContain('med_name');

    for (const [token, condition] of [
      [medsOnly, item('实验室检查', 'lab_item', 'eq', ['血钾'])],
      [medsOnly, item('影像学检查', 'xray', 'notEmpty')],
      [vitalsOnly, item('术后用药', 'med_name', 'eq', ['塞来昔布'])],
    ] as const) {
      const res = await run(token, [{ conditions: [condition] }]);
      expect(res.status, JSON.stringify(condition)).toBe(403);
      expect(res.body.msg).toBe('无权检索或显示该表单的数据（没有该表单的查看权限）');
    }
    const column = await run(vitalsOnly, [], {
      columns: [{ kind: 'item', crfId: crfIds['术后用药'], itemName: 'med_name' }],
    });
    expect(column.status).toBe(403);
    expect(JSON.stringify(column.body)).not.toContain('塞来昔布');
    expect(await found(item('术后用药', 'med_route', 'eq', ['iv']), medsOnly)).toBe('B');
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
