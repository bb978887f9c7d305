import { and, asc, count, eq, gt, max, sql } from 'drizzle-orm';
import { crfKey, MSG } from '@ecrf/core';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, crfDataRecords, outboxEvents, signatures } from '../../db/schema/index.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { verifyAuditChains } from '../audit/audit-chain.js';
import { saveForm, type FormChange, type FormWriter } from './form-write.js';
import { openDemoStudy } from '../../test/demo.js';
import { multipart } from '../../test/multipart.js';
import { createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../test/test-app.js';

/**
 * The one write path for form values (form-write.ts): every writer — the form page's save, a patient-reported form,
 * the Excel data import (its set-based batch), the REDCap-compatible API and the image URL import — makes the same
 * change to the same item with the same effects: the same audit rows (the author aside), the casebook's signature
 * voided with the same words and trail row, the changed item's SDV mark cleared with the same row, the same domain
 * event; and the same refusal, naming the lock, when the casebook is locked.
 */

let t: TestApp;
let admin: string;
let studyId: number;
let crfIds: Record<string, number>;
let apiToken: string;
const vitals = () => crfIds['生命体征']!;
const BEFORE = { sbp: '130', dbp: '80', hr: '70' };
// A 1×1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/** A fresh patient: enrolled, bound to the patient portal; with `values` a form record, its item SDV-verified. */
interface Patient {
  subjectId: number;
  subjectRecordId: number;
  code: string;
  portalToken: string;
  crfId: number;
  recordId: number | null;
  signatureId: number;
}

let counter = 0;
async function freshPatient(form: { crfId: number; values?: Record<string, unknown>; verify?: string }) {
  counter += 1;
  const enrolled = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName: `同一路径${counter}`,
    gender: 1,
    birth: '1960-05-01',
    diseaseCode: 'LSS',
  });
  expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
  const { id: subjectId, subjectRecordId, identificationCode: code } = enrolled.body.data;
  let recordId: number | null = null;
  if (form.values) {
    const saved = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId,
      crfId: form.crfId,
      version: 0,
      values: form.values,
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    recordId = saved.body.data.crfDataRecordId as number;
    const verified = await t.call(admin, 'PUT', '/api/business/crf/sdv', {
      crfDataRecordId: recordId,
      itemNames: [form.verify],
      verified: true,
    });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
  }
  const signed = await t.call(admin, 'PUT', '/api/v1/business/subject/sign', {
    subjectRecordId,
    password: TEST_ADMIN_PASSWORD,
  });
  expect(signed.status, JSON.stringify(signed.body)).toBe(200);
  const [signature] = await t.db.select().from(signatures).where(eq(signatures.subjectRecordId, subjectRecordId));
  const code_ = await t.call(admin, 'POST', '/api/business/wechat/bind-code', { studyId, subjectId });
  expect(code_.status, JSON.stringify(code_.body)).toBe(200);
  const bound = await t.app.inject({
    method: 'POST',
    url: '/api/ignore/patient/bind',
    payload: { studyId, code: code_.body.data.code },
  });
  expect(bound.statusCode, bound.body).toBe(200);
  const portalToken = (bound.json() as { data: { token: string } }).data.token;
  return {
    subjectId,
    subjectRecordId,
    code,
    portalToken,
    crfId: form.crfId,
    recordId,
    signatureId: signature!.id,
  } satisfies Patient;
}

async function recordOf(p: Patient) {
  const [row] = await t.db
    .select()
    .from(crfDataRecords)
    .where(and(eq(crfDataRecords.subjectRecordId, p.subjectRecordId), eq(crfDataRecords.crfId, p.crfId)));
  return row;
}

/** What a writer answered: its status and the refusal's words (the data import answers 200 with refused rows). */
interface Outcome {
  status: number;
  msg: string;
}

/** Every writer of form values, each stating the change its own way: the values of the form after the change. */
const WRITERS: Record<string, (p: Patient, values: Record<string, string>) => Promise<Outcome>> = {
  'form save (PUT /api/v3/business/crf)': async (p, values) => {
    const record = await recordOf(p);
    const res = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId: p.subjectRecordId,
      crfId: p.crfId,
      crfDataRecordId: record?.id ?? null,
      version: record?.version ?? 0,
      values: { ...record?.values, ...values },
    });
    return { status: res.status, msg: res.body.msg };
  },
  'patient-reported form (POST /api/ignore/patient/forms)': async (p, values) => {
    const record = await recordOf(p);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/ignore/patient/forms/${p.crfId}`,
      headers: { 'x-patient-token': p.portalToken },
      payload: {
        values: { ...record?.values, ...values },
        submit: false,
        crfDataRecordId: record?.id ?? null,
        version: record?.version ?? null,
      },
    });
    return { status: res.statusCode, msg: (res.json() as { msg: string }).msg };
  },
  'Excel data import (SRCH-06)': async (p, values) => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('生命体征');
    ws.addRow(['编号', ...Object.keys(values)]);
    ws.addRow([p.code, ...Object.values(values)]);
    const body = multipart({}, [{ fileName: '导入.xlsx', data: Buffer.from(await wb.xlsx.writeBuffer()) }]);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/business/import/multi_crf_sheet/multi_thread?studyId=${studyId}&submitType=0&mode=patient`,
      headers: { ...body.headers, authorization: `Bearer ${admin}` },
      payload: body.payload,
    });
    const answer = res.json() as { msg: string; data?: { result: { errors: Array<{ message: string }> } } };
    return { status: res.statusCode, msg: answer.data?.result.errors[0]?.message ?? answer.msg };
  },
  'REDCap API record import': async (p, values) => {
    const form = new URLSearchParams({
      token: apiToken,
      content: 'record',
      action: 'import',
      format: 'json',
      data: JSON.stringify([{ record_id: p.code, ...values }]),
    });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/redcap',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form.toString(),
    });
    return { status: res.statusCode, msg: res.statusCode === 200 ? '' : (res.json() as { error: string }).error };
  },
};

const lastAuditId = async () =>
  (
    await t.db
      .select({ id: max(auditEvents.id) })
      .from(auditEvents)
      .where(eq(auditEvents.studyId, studyId))
  )[0]!.id ?? 0;
const lastEventId = async () =>
  (
    await t.db
      .select({ id: max(outboxEvents.id) })
      .from(outboxEvents)
      .where(eq(outboxEvents.studyId, studyId))
  )[0]!.id ?? 0;

/**
 * What a change did to the patient since the marks, in terms every writer shares: the audit rows (action, item,
 * old and new value; the reason where it is the path's own, not the writer's), the signature, the record's values,
 * version and SDV marks, and the domain events about the record.
 */
async function effects(p: Patient, since: { audit: number; event: number; version: number }) {
  const rows = await t.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.subjectRecordId, p.subjectRecordId), gt(auditEvents.id, since.audit)))
    .orderBy(asc(auditEvents.id));
  const record = (await recordOf(p))!;
  const [signature] = await t.db.select().from(signatures).where(eq(signatures.id, p.signatureId));
  const events = await t.db
    .select({ type: outboxEvents.type })
    .from(outboxEvents)
    .where(
      and(
        eq(outboxEvents.studyId, studyId),
        gt(outboxEvents.id, since.event),
        sql`(${outboxEvents.payload}->>'recordId')::int = ${record.id}`,
      ),
    )
    .orderBy(asc(outboxEvents.id));
  return {
    audit: rows.map((r) => ({
      action: r.action,
      onRecord: r.crfDataRecordId === record.id,
      crfId: r.crfId,
      itemName: r.itemName,
      oldValue:
        r.action === 'subject.sign_invalidated' && JSON.stringify(r.oldValue) === JSON.stringify([p.signatureId])
          ? 'the casebook’s signature'
          : r.oldValue,
      newValue: r.newValue,
      // An item's change carries the writer's reason (API导入, 数据导入 with the file's hash); these are the path's.
      reason: r.action === 'item.update' ? '(the writer’s)' : r.reason,
    })),
    signature: { void: signature!.invalidatedAt !== null, reason: signature!.invalidatedReason },
    record: { values: record.values, version: record.version - since.version, sdv: Object.keys(record.sdv ?? {}) },
    events: events.map((e) => e.type),
  };
}

beforeAll(async () => {
  t = await createTestApp({ config: { dataDir: `/tmp/edc-one-write-path-test-${process.pid}` } });
  ({ admin, studyId, crfIds } = await openDemoStudy(t));
  const settings = await t.call(admin, 'PUT', '/api/business/wechat/settings', {
    studyId,
    bindEnabled: true,
    appId: '',
    welcome: '',
    proCrfIds: [vitals(), crfIds['影像学检查']],
  });
  expect(settings.status, JSON.stringify(settings.body)).toBe(200);
  const token = await t.call(admin, 'POST', '/api/system/user/profile/apiToken', { studyId });
  expect(token.status, JSON.stringify(token.body)).toBe(200);
  apiToken = token.body.data.token;
});
afterAll(() => t.close());

const lock = async (p: Patient, locked: boolean) => {
  const res = await t.call(admin, 'PUT', '/api/business/lock', {
    studyId,
    scope: 'subject',
    targetId: p.subjectRecordId,
    locked,
    reason: '核查完成',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};

/** Each writer on a fresh patient: refused while the casebook is locked (nothing written), then the change. */
async function throughEveryWriter(
  writers: Record<string, (p: Patient, values: Record<string, string>) => Promise<Outcome>>,
  patient: () => Promise<Patient>,
  values: (p: Patient) => Record<string, string>,
) {
  const out: Record<string, { refused: Outcome; effects: Awaited<ReturnType<typeof effects>> }> = {};
  for (const [name, write] of Object.entries(writers)) {
    const p = await patient();
    await lock(p, true);
    const marks = {
      audit: await lastAuditId(),
      event: await lastEventId(),
      version: (await recordOf(p))?.version ?? 0,
    };
    const refused = await write(p, values(p));
    expect(await lastAuditId(), `${name} wrote audit rows while locked`).toBe(marks.audit);
    expect(await lastEventId(), `${name} recorded an event while locked`).toBe(marks.event);
    expect((await recordOf(p))?.version ?? 0, `${name} wrote while locked`).toBe(marks.version);
    await lock(p, false);
    const since = { audit: await lastAuditId(), event: await lastEventId(), version: marks.version };
    const written = await write(p, values(p));
    expect(written.status, `${name}: ${written.msg}`).toBe(200);
    out[name] = { refused, effects: await effects(p, since) };
  }
  return out;
}

/** Each writer's refusal of a locked casebook: 423 with the lock named, or that text in the writer's own answer. */
function expectSameRefusal(outcomes: Record<string, { refused: Outcome }>) {
  const page = Object.values(outcomes)[0]!.refused;
  expect(page.status).toBe(423);
  expect(page.msg).toMatch(/^该病例已锁定（.+），如需修改请先解锁$/);
  for (const [name, { refused }] of Object.entries(outcomes)) {
    if (name.startsWith('Excel')) expect(refused, name).toEqual({ status: 200, msg: page.msg });
    else if (name.startsWith('REDCap') || name.startsWith('image URL')) {
      // Both API answers are 400 in their own shape, naming the record or row, with the lock's own words.
      expect(refused.status, name).toBe(400);
      expect(refused.msg, name).toContain(page.msg);
    } else expect(refused, name).toEqual(page);
  }
}

describe('one write path for form values', () => {
  it('CRF-27: every writer changes a verified item of a signed casebook alike: the same audit rows, signature voided with the same words and row, SDV mark cleared with the same row, the same event; a locked casebook refuses every writer with the same words', async () => {
    const outcomes = await throughEveryWriter(
      WRITERS,
      () => freshPatient({ crfId: vitals(), values: BEFORE, verify: 'hr' }),
      () => ({ hr: '72' }),
    );
    const expected = {
      audit: [
        {
          action: 'item.update',
          onRecord: true,
          crfId: vitals(),
          itemName: 'hr',
          // The trail's value of an integer item, whatever text the writer sent.
          oldValue: 70,
          newValue: 72,
          reason: '(the writer’s)',
        },
        {
          action: 'sdv.clear',
          onRecord: true,
          crfId: vitals(),
          itemName: 'hr',
          oldValue: null,
          newValue: null,
          reason: '数据修改后核查失效',
        },
        {
          action: 'subject.sign_invalidated',
          onRecord: false,
          crfId: null,
          itemName: null,
          oldValue: 'the casebook’s signature',
          newValue: null,
          reason: '表单“生命体征”的数据在签名后被修改',
        },
      ],
      signature: { void: true, reason: '表单“生命体征”的数据在签名后被修改' },
      record: { values: expect.objectContaining({ ...BEFORE, hr: '72' }), version: 1, sdv: [] },
      events: ['record.saved'],
    };
    const first = Object.values(outcomes)[0]!.effects;
    expect(first).toEqual(expected);
    for (const [name, { effects: seen }] of Object.entries(outcomes)) expect(seen, name).toEqual(first);
    expectSameRefusal(outcomes);
    // Every writer's rows are on the study's hash chain, which still verifies.
    expect((await verifyAuditChains(t.db)).ok).toBe(true);
  });

  it("CRF-27: a form's first record is created alike by every writer (crf.create, each value, the signature voided, one event)", async () => {
    const outcomes = await throughEveryWriter(
      WRITERS,
      () => freshPatient({ crfId: vitals() }),
      () => ({ ...BEFORE }),
    );
    const first = Object.values(outcomes)[0]!.effects;
    expect(first.audit.map((r) => [r.action, r.itemName])).toEqual([
      ['crf.create', null],
      ['item.update', 'sbp'],
      ['item.update', 'dbp'],
      ['item.update', 'hr'],
      ['subject.sign_invalidated', null],
    ]);
    expect(first.events).toEqual(['record.saved']);
    expect(first.signature).toEqual({ void: true, reason: '表单“生命体征”的数据在签名后被修改' });
    for (const [name, { effects: seen }] of Object.entries(outcomes)) expect(seen, name).toEqual(first);
    expectSameRefusal(outcomes);
  });

  it('SRCH-07: the image URL import attaches an image as the form page saving the same value does (audit row, signature, SDV, event), and is refused alike when locked', async () => {
    const imaging = crfIds['影像学检查']!;
    const form = multipart({}, [{ fileName: 'xray.png', data: PNG }]);
    const uploaded = await t.app.inject({
      method: 'POST',
      url: `/api/common/file/upload?studyId=${studyId}`,
      headers: { ...form.headers, authorization: `Bearer ${admin}` },
      payload: form.payload,
    });
    expect(uploaded.statusCode, uploaded.body).toBe(200);
    const url = `/api/v1/fileupload/downfile?fileKey=${(uploaded.json() as { data: { fileKey: string } }).data.fileKey}`;
    // The value the image URL import makes is what the form page then saves (the same clock: the same upload time).
    let attached: Record<string, string> = {};
    const writers = {
      'image URL import': async (p: Patient): Promise<Outcome> => {
        const res = await t.call(admin, 'POST', '/api/business/import/image_urls', {
          studyId,
          items: [{ identificationCode: p.code, crf: '影像学检查', item: 'xray', url }],
        });
        if (res.status === 200) attached = { xray: (await recordOf(p))!.values.xray as string };
        return { status: res.status, msg: res.status === 200 ? '' : res.body.data.errors[0].message };
      },
      'form save (PUT /api/v3/business/crf)': (p: Patient) =>
        WRITERS['form save (PUT /api/v3/business/crf)']!(p, attached),
    };
    const outcomes = await throughEveryWriter(
      writers,
      () => freshPatient({ crfId: imaging, values: { cobb: '12' }, verify: 'xray' }),
      () => ({}),
    );
    const [byImport, byPage] = Object.values(outcomes).map((o) => o.effects);
    expect(byImport!.audit.map((r) => [r.action, r.itemName, r.reason])).toEqual([
      ['item.update', 'xray', '(the writer’s)'],
      ['sdv.clear', 'xray', '数据修改后核查失效'],
      ['subject.sign_invalidated', null, '表单“影像学检查”的数据在签名后被修改'],
    ]);
    expect(byPage).toEqual(byImport);
    const refusals = Object.values(outcomes).map((o) => o.refused);
    expect(refusals[0]!.status).toBe(400);
    expect(refusals[1]!.status).toBe(423);
    expect(refusals[0]!.msg).toBe(refusals[1]!.msg);
  });

  it("CRF-27: who may write is the path's own rule, whoever calls it: a member needs the form's permission, the study and the patient's site; a patient only their own casebook and assigned forms; nothing is written", async () => {
    const p = await freshPatient({ crfId: vitals(), values: BEFORE, verify: 'hr' });
    const other = await freshPatient({ crfId: vitals() });
    const record = (await recordOf(p))!;
    const change: FormChange = {
      subjectRecordId: p.subjectRecordId,
      crfId: vitals(),
      crfDataRecordId: record.id,
      version: record.version,
      values: { ...record.values, hr: '75' },
    };
    const user = {
      userId: 1,
      userName: 'admin',
      name: '管理员',
      deptId: null,
      sessionId: '',
      admin: true,
      permissions: [],
      setPasswordMust: false,
    };
    const access = (over: Partial<StudyAccess>): StudyAccess => ({
      studyId,
      member: true,
      studyRoleId: null,
      permissions: [crfKey(vitals(), 'view'), crfKey(vitals(), 'save')],
      all: false,
      timeZone: 'Asia/Shanghai',
      siteIds: null,
      ownSiteIds: [],
      ...over,
    });
    const patient = (of: Patient): FormWriter => ({
      kind: 'patient',
      subjectRecordId: of.subjectRecordId,
      author: { userId: 0, userName: `患者填写(${of.code})` },
      timeZone: 'Asia/Shanghai',
    });
    const rows = async () => (await t.db.select({ n: count() }).from(auditEvents))[0]!.n;
    const before = await rows();
    const refusals: Array<[string, FormWriter, FormChange, number, string]> = [
      ['no save permission', { kind: 'staff', user, access: access({ permissions: [] }) }, change, 403, MSG.forbidden],
      [
        'submit without its permission',
        { kind: 'staff', user, access: access({}) },
        { ...change, submit: true },
        403,
        MSG.forbidden,
      ],
      [
        'another study',
        { kind: 'staff', user, access: access({ studyId: studyId + 1000 }) },
        change,
        404,
        '患者不存在',
      ],
      [
        "another site's patient",
        { kind: 'staff', user, access: access({ siteIds: [987654] }) },
        change,
        403,
        '患者不在您的中心范围内',
      ],
      ["another patient's casebook", patient(other), change, 403, '无权填写该表单'],
      [
        'a form not patient-reported',
        patient(p),
        { ...change, crfId: crfIds['人口学资料']!, crfDataRecordId: null },
        403,
        '无权填写该表单',
      ],
    ];
    for (const [why, writer, asked, status, msg] of refusals) {
      const refused = await saveForm(t.ctx, writer, asked).then(
        () => null,
        (err: { status: number; message: string }) => ({ status: err.status, msg: err.message }),
      );
      expect(refused, why).toEqual({ status, msg });
    }
    expect(await rows()).toBe(before);
    expect((await recordOf(p))!.version).toBe(record.version);
    // The same change by a writer who may: written.
    const written = await saveForm(t.ctx, patient(p), change);
    expect(written.changedItems).toEqual(['hr']);
  });
});
