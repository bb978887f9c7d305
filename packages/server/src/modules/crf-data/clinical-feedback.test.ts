import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonKey, crfKey, MSG } from '@ecrf/core';
import { auditEvents, crfDataRecords, doubts } from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

let t: TestApp;
let admin: string;
let studyId: number;
const crfIds: Record<string, number> = {};

beforeAll(async () => {
  t = await createTestApp();
  const demo = await openDemoStudy(t);
  ({ admin, studyId } = demo);
  Object.assign(crfIds, demo.crfIds);
});
afterAll(() => t.close());

async function enrol(extra: object = {}) {
  const res = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName: '周八',
    gender: 1,
    birth: '1958-03-02',
    diseaseCode: 'LSS',
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { id: number; subjectRecordId: number };
}

const save = (body: object, token = admin) => t.call(token, 'PUT', '/api/v3/business/crf', body);
const detail = (subjectRecordId: number, crfId: number, token = admin) =>
  t.call(token, 'GET', `/api/v3/business/crf/${subjectRecordId}?crfId=${crfId}`);

async function listRow(subjectRecordId: number) {
  const res = await t.call(admin, 'POST', '/api/v3/business/subjectRecord/list', {
    studyId,
    pageNum: 1,
    pageSize: 100,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.data.list as Array<{ subjectRecordId: number; crfStates: Record<string, number> }>).find(
    (r) => r.subjectRecordId === subjectRecordId,
  )!;
}

/** Counts the statements the application sends while `work` runs (drizzle's query log, without transaction control). */
async function countStatements(work: () => Promise<unknown>): Promise<number> {
  const session = (t.db as unknown as { _: { session: { logger: unknown; options: { logger?: unknown } } } })._.session;
  const saved = { logger: session.logger, options: session.options.logger };
  let n = 0;
  // The outbox's own bookkeeping (claims, deliveries, drain, and the transactions around them, as many as its
  // batching makes on a given run) is not the work being measured.
  const bookkeeping = (query: string) =>
    query.includes('outbox_') || /^\s*(begin|commit|rollback|savepoint|release)\b/i.test(query);
  const logger = { logQuery: (query: string) => (n += bookkeeping(query) ? 0 : 1) };
  session.logger = logger;
  session.options.logger = logger;
  try {
    await work();
  } finally {
    session.logger = saved.logger;
    session.options.logger = saved.options;
  }
  return n;
}

describe('表单进度 in the patient list', () => {
  it('a new patient is expected to fill the study’s six stage forms: 0/6, and a repeatable form counts once', async () => {
    const { subjectRecordId } = await enrol();
    expect((await listRow(subjectRecordId)).crfStates).toEqual({ total: 6, submitted: 0, incomplete: 0, doubt: 0 });

    const vitals = await save({
      subjectRecordId,
      crfId: crfIds['生命体征'],
      version: 0,
      values: { sbp: 120, dbp: 80 },
      submit: true,
    });
    expect(vitals.status, JSON.stringify(vitals.body)).toBe(200);
    const followUp = crfIds['术后随访']!;
    for (const [date, submit] of [
      ['2024-06-01', true],
      ['2024-09-01', true],
    ] as const) {
      const res = await save({ subjectRecordId, crfId: followUp, version: 0, values: { fu_date: date }, submit });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    expect((await listRow(subjectRecordId)).crfStates).toMatchObject({ total: 6, submitted: 2, incomplete: 0 });
    await save({ subjectRecordId, crfId: followUp, version: 0, values: { fu_vas: 3 } });
    // One follow-up still open: the form is started, not submitted.
    expect((await listRow(subjectRecordId)).crfStates).toMatchObject({ total: 6, submitted: 1, incomplete: 1 });
  });

  it('in multi-disease mode a patient is expected to fill the forms of their disease', async () => {
    const diseases = (await t.call(admin, 'GET', `/api/business/study_disease/${studyId}`)).body.data
      .diseases as Array<{
      id: number;
      diseaseCode: string;
    }>;
    const lds = diseases.find((d) => d.diseaseCode === 'LDS')!;
    const set = await t.call(admin, 'PUT', `/api/business/study_disease/disease/crf?studyDiseaseId=${lds.id}`, {
      crfVO: [crfIds['人口学资料'], crfIds['手术记录']],
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const on = await t.call(admin, 'PUT', '/api/business/study_disease/multi_disease', { studyId, multiDisease: true });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    try {
      const slip = await enrol({ subjectName: '吴九', diseaseCode: 'LDS' });
      const stenosis = await enrol({ subjectName: '郑十', diseaseCode: 'LSS' });
      expect((await listRow(slip.subjectRecordId)).crfStates.total).toBe(2);
      // A disease that lists no forms yet falls back to the stage forms rather than 0/0.
      expect((await listRow(stenosis.subjectRecordId)).crfStates.total).toBe(6);
    } finally {
      await t.call(admin, 'PUT', '/api/business/study_disease/multi_disease', { studyId, multiDisease: false });
    }
  });
});

describe('patient fields prefill a new form', () => {
  it('SUBJ-04: sex and birth date typed in the patient dialog start 人口学资料; saved, they are audited like typed values', async () => {
    const { subjectRecordId } = await enrol({ gender: 0, birth: '1961-07-09' });
    const crfId = crfIds['人口学资料']!;
    const opened = (await detail(subjectRecordId, crfId)).body.data;
    expect(opened.crfDataRecord).toBeNull();
    expect(opened.initialValues).toEqual({ sex: '2', birth: '1961-07-09' });

    const saved = await save({ subjectRecordId, crfId, version: 0, values: { ...opened.initialValues, height: 160 } });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const rows = await t.db
      .select()
      .from(auditEvents)
      .where(
        and(eq(auditEvents.crfDataRecordId, saved.body.data.crfDataRecordId), eq(auditEvents.action, 'item.update')),
      );
    expect(rows.map((r) => [r.itemName, String(r.newValue)]).sort()).toEqual([
      ['age', '65'],
      ['birth', '1961-07-09'],
      ['height', '160'],
      ['sex', '2'],
    ]);
    // Opened again, the form shows what was saved, not the patient record.
    expect((await detail(subjectRecordId, crfId)).body.data.initialValues).toBeNull();
  });

  it('a member who sees identifiers masked gets gender prefilled, never the birth date', async () => {
    const crfId = crfIds['人口学资料']!;
    const token = await addStudyMember(t, admin, studyId, '13300000011', {
      permissions: [crfKey(crfId, 'view'), crfKey(crfId, 'save'), buttonKey('business.subject.add')],
    });
    const { subjectRecordId } = await enrol({ gender: 1, birth: '1950-01-31' });
    const opened = (await detail(subjectRecordId, crfId, token)).body.data;
    expect(opened.subject).toMatchObject({ identifiersMasked: true, birth: '1950-**-**' });
    expect(opened.initialValues).toEqual({ sex: '1' });
  });
});

describe('reference ranges in the chosen unit', () => {
  const hbQueries = async (crfDataRecordId: number) =>
    (
      await t.db
        .select({ message: doubts.doubtDescription })
        .from(doubts)
        .where(and(eq(doubts.crfDataRecordId, crfDataRecordId), eq(doubts.itemName, 'hb'), eq(doubts.doubtType, 0)))
    ).map((d) => d.message);

  it('VIS-05: 13.5 g/dL for a man is no ↓偏低 against the g/L range; 12.5 g/dL is, and raises the system query', async () => {
    const { subjectRecordId } = await enrol();
    const crfId = crfIds['实验室检查']!;
    const normal = await save({
      subjectRecordId,
      crfId,
      version: 0,
      values: { hb: '13.5', hb_unit: 'g/dL' },
      submit: true,
    });
    expect(normal.status, JSON.stringify(normal.body)).toBe(200);
    await t.ctx.events.drain();
    expect(await hbQueries(normal.body.data.crfDataRecordId)).toEqual([]);
    const low = await save({
      subjectRecordId,
      crfId,
      crfDataRecordId: normal.body.data.crfDataRecordId,
      version: 1,
      values: { hb: '12.5', hb_unit: 'g/dL' },
      reason: '复查',
    });
    expect(low.status, JSON.stringify(low.body)).toBe(200);
    await t.ctx.events.drain();
    expect(await hbQueries(normal.body.data.crfDataRecordId)).toEqual(['血红蛋白低于参考范围，请核实']);
  });
});

describe('required cells of list-group rows', () => {
  const surgery = {
    op_at: '2024-03-01 09:30:00',
    approach: 'mis',
    op_levels: 'L4/5',
    implants: [{ implant_name: '椎弓根钉', implant_qty: '4' }],
  };

  it('CRF-22/CRF-27: a submitted form is refused a save that leaves a required row cell (or item) blank', async () => {
    const { subjectRecordId } = await enrol();
    const crfId = crfIds['手术记录']!;
    const blankRow = { ...surgery, implants: [{ implant_name: '', implant_qty: '4' }] };
    const refused = await save({ subjectRecordId, crfId, version: 0, values: blankRow, submit: true });
    expect(refused.body.msg).toBe(MSG.fillRequired);
    expect(refused.body.data.errors).toEqual([
      { itemName: 'implant_name', groupName: 'implants', groupIndex: 0, message: '请输入数据' },
    ]);

    const submitted = await save({ subjectRecordId, crfId, version: 0, values: surgery, submit: true });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    const id = submitted.body.data.crfDataRecordId as number;
    const edit = (values: object) =>
      save({ subjectRecordId, crfId, crfDataRecordId: id, version: 1, values, reason: '补录' });

    const row = await edit(blankRow);
    expect(row.status).toBe(400);
    expect(row.body.msg).toBe(MSG.fillRequired);
    expect(row.body.data.errors).toEqual([
      { itemName: 'implant_name', groupName: 'implants', groupIndex: 0, message: '请输入数据' },
    ]);
    const item = await edit({ ...surgery, approach: '' });
    expect(item.status).toBe(400);
    expect(item.body.data.errors).toEqual([
      { itemName: 'approach', groupName: null, groupIndex: null, message: '请选择选项' },
    ]);
    const [stored] = await t.db.select().from(crfDataRecords).where(eq(crfDataRecords.id, id));
    expect(stored).toMatchObject({ version: 1, state: 2 });
    expect((stored!.values.implants as Array<Record<string, unknown>>)[0]!.implant_name).toBe('椎弓根钉');
  });

  it('a form in progress may still be saved with a blank required row cell', async () => {
    const { subjectRecordId } = await enrol();
    const res = await save({
      subjectRecordId,
      crfId: crfIds['手术记录'],
      version: 0,
      values: { implants: [{ implant_name: '' }] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.state).toBe(1);
  });
});

describe('calculations that read another form of the same patient', () => {
  it('术后天数 counts from the day of surgery (手术记录) to the visit, on the server and in the form detail', async () => {
    const { subjectRecordId } = await enrol();
    const followUp = crfIds['术后随访']!;
    const before = await save({ subjectRecordId, crfId: followUp, version: 0, values: { fu_date: '2024-06-01' } });
    // No surgery yet: the reference is blank, so nothing is calculated (never days to today).
    const [first] = await t.db
      .select()
      .from(crfDataRecords)
      .where(eq(crfDataRecords.id, before.body.data.crfDataRecordId));
    expect(first!.values.fu_days).toBeUndefined();

    const surgery = await save({
      subjectRecordId,
      crfId: crfIds['手术记录'],
      version: 0,
      values: { op_at: '2024-03-01 09:30:00', approach: 'open', op_levels: 'L4/5' },
    });
    expect(surgery.status, JSON.stringify(surgery.body)).toBe(200);
    const visit = await save({ subjectRecordId, crfId: followUp, version: 0, values: { fu_date: '2024-06-01' } });
    const [stored] = await t.db
      .select()
      .from(crfDataRecords)
      .where(eq(crfDataRecords.id, visit.body.data.crfDataRecordId));
    expect(stored!.values.fu_days).toBe('92');

    // The CRF page gets the values its calculations read with the form.
    const opened = (await detail(subjectRecordId, followUp)).body.data;
    expect(opened.formValues).toEqual({ 手术记录: { op_at: '2024-03-01 09:30:00' } });
    // Another patient's surgery is never read.
    const other = await enrol({ subjectName: '冯十一' });
    expect((await detail(other.subjectRecordId, followUp)).body.data.formValues).toEqual({});
  });

  it('a member who may not view the other form gets no values from it in the detail; the server still calculates', async () => {
    const followUp = crfIds['术后随访']!;
    const token = await addStudyMember(t, admin, studyId, '13300000012', {
      permissions: [crfKey(followUp, 'view'), crfKey(followUp, 'save')],
    });
    const { subjectRecordId } = await enrol();
    await save({ subjectRecordId, crfId: crfIds['手术记录'], version: 0, values: { op_at: '2024-03-01 23:00:00' } });
    expect((await detail(subjectRecordId, followUp, token)).body.data.formValues).toEqual({});
    const visit = await save(
      { subjectRecordId, crfId: followUp, version: 0, values: { fu_date: '2024-03-08' } },
      token,
    );
    expect(visit.status, JSON.stringify(visit.body)).toBe(200);
    const [stored] = await t.db
      .select()
      .from(crfDataRecords)
      .where(eq(crfDataRecords.id, visit.body.data.crfDataRecordId));
    expect(stored!.values.fu_days).toBe('7');
  });

  it('a save reads every cross-form reference in one statement, however many there are', async () => {
    const upload = async (title: string, calc: string) => {
      const res = await t.call(admin, 'POST', '/api/system/crf', {
        studyId,
        definition: {
          title,
          option: {},
          children: [
            { name: 'x', title: 'X', type: 'int', option: {}, children: [] },
            { name: 'y', title: 'Y', type: 'real', option: { calc }, children: [] },
          ],
        },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return { id: res.body.data.crfs[0].id as number, warnings: res.body.data.warnings as Array<{ message: string }> };
    };
    const plain = await upload('无引用', 'x + 1');
    const linked = await upload(
      '三处引用',
      'x + number(form("手术记录", "op_minutes")) + number(form("手术记录", "blood_loss")) + number(form("实验室检查", "hb"))',
    );
    expect(linked.warnings).toEqual([]);
    const { subjectRecordId } = await enrol();
    await save({
      subjectRecordId,
      crfId: crfIds['手术记录'],
      version: 0,
      values: { op_minutes: 120, blood_loss: 300 },
    });
    await save({ subjectRecordId, crfId: crfIds['实验室检查'], version: 0, values: { hb: '130' } });

    // The save reads the references, and so does the system-query check after it (its outbox subscriber), which
    // reconciles a submitted form (a draft without open system queries it skips).
    const statements = async (crfId: number) => {
      let answer: Awaited<ReturnType<typeof save>> | undefined;
      await t.ctx.events.drain();
      const n = await countStatements(async () => {
        answer = await save({ subjectRecordId, crfId, version: 0, values: { x: 1 }, submit: true });
        await t.ctx.events.drain();
      });
      expect(answer!.status, JSON.stringify(answer!.body)).toBe(200);
      return { n, id: answer!.body.data.crfDataRecordId as number };
    };
    const withoutReferences = await statements(plain.id);
    const withReferences = await statements(linked.id);
    // One read in the save and one in its system-query subscriber (2). Reading per reference would cost 2 × 3;
    // a delivery retried inside the window (at least once) can add a read, never take one away.
    const extra = withReferences.n - withoutReferences.n;
    expect(extra).toBeGreaterThanOrEqual(2);
    expect(extra).toBeLessThan(6);
    const [stored] = await t.db.select().from(crfDataRecords).where(eq(crfDataRecords.id, withReferences.id));
    expect(stored!.values.y).toBe('551');
  });

  it('an upload naming a form the study does not have is stored with a warning', async () => {
    const res = await t.call(admin, 'POST', '/api/system/crf', {
      studyId,
      definition: {
        title: '出院小结',
        option: {},
        children: [
          { name: 'd', title: '出院日期', type: 'date', option: {}, children: [] },
          {
            name: 'los',
            title: '住院天数',
            type: 'int',
            option: { calc: 'datediff(form("入院记录", "admit_date"), d, "d")' },
            children: [],
          },
        ],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.warnings).toEqual([
      {
        path: '出院小结',
        message: '表单“出院小结”的表达式引用的表单“入院记录”在项目中不存在，上传该表单前引用的值为空',
      },
    ]);
  });
});
