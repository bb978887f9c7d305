import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoStudy } from '../../db/demo-study.js';
import { multipart } from '../../test/multipart.js';
import { wordTemplate } from '../../test/word-template.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

let t: TestApp;
let admin: string;
let studyId: number;
const crfIds: Record<string, number> = {};

beforeAll(async () => {
  t = await createTestApp({ config: { dataDir: `/tmp/edc-print-test-${process.pid}` } });
  await seedDemoStudy(t.db);
  admin = (await t.login()).token;
  const studies = (await t.call(admin, 'GET', '/api/business/study/list')).body.data.list;
  studyId = studies[0].id;
  for (const crf of (await t.call(admin, 'GET', `/api/system/crf/list?studyId=${studyId}`)).body.data) {
    crfIds[crf.title] = crf.id;
  }
});
afterAll(() => t.close());

async function enrol(extra: object = {}) {
  const res = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName: '王五',
    gender: 1,
    birth: '1958-03-02',
    diseaseCode: 'LSS',
    mobile: '13912345678',
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { id: number; subjectRecordId: number; identificationCode: string };
}

const save = (body: object, token = admin) => t.call(token, 'PUT', '/api/v3/business/crf', body);

describe('print', () => {
  it('PRINT-15: GET, POST, PUT and DELETE /api/v1/business/crf/print/temp with crfId; printing fills the Word template with a record’s values', async () => {
    const docx = await wordTemplate('患者：{subjectName} 编号：{identificationCode} 性别：{sex} 体重：{weight}');
    const demographics = crfIds['人口学资料']!;
    const form = multipart({}, [{ fileName: '人口学资料.docx', data: docx }]);
    const up = await t.app.inject({
      method: 'POST',
      url: `/api/v1/business/crf/print/temp?crfId=${demographics}`,
      headers: { ...form.headers, authorization: `Bearer ${admin}` },
      payload: form.payload,
    });
    expect(up.statusCode, up.body).toBe(200);
    expect((await t.call(admin, 'GET', `/api/v1/business/crf/print/is_temp?crfId=${demographics}`)).body.data).toBe(
      true,
    );
    expect(
      (await t.call(admin, 'GET', `/api/v1/business/crf/print/temp?crfId=${demographics}`)).body.data,
    ).toMatchObject({ crfId: demographics, fileName: '人口学资料.docx' });
    const subject = await enrol({ subjectName: '陈三' });
    await save({
      subjectRecordId: subject.subjectRecordId,
      crfId: demographics,
      version: 0,
      values: { sex: '2', weight: 55 },
    });
    const printed = await t.app.inject({
      method: 'GET',
      url: `/api/v1/business/crf/print/word?subjectRecordId=${subject.subjectRecordId}&crfId=${demographics}`,
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(printed.statusCode).toBe(200);
    const PizZip = (await import('pizzip')).default;
    const text = new PizZip(printed.rawPayload).file('word/document.xml')!.asText();
    expect(text).toContain('患者：陈三');
    expect(text).toContain('性别：女');
    expect(text).toContain('体重：55');
    const bad = multipart({}, [{ fileName: 'x.docx', data: 'not a docx' }]);
    expect(
      (
        await t.app.inject({
          method: 'PUT',
          url: `/api/v1/business/crf/print/temp?crfId=${demographics}`,
          headers: { ...bad.headers, authorization: `Bearer ${admin}` },
          payload: bad.payload,
        })
      ).statusCode,
    ).toBe(400);
    const replacement = multipart({}, [{ fileName: '人口学资料-v2.docx', data: docx }]);
    const replaced = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/business/crf/print/temp?crfId=${demographics}`,
      headers: { ...replacement.headers, authorization: `Bearer ${admin}` },
      payload: replacement.payload,
    });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(
      (await t.call(admin, 'GET', `/api/v1/business/crf/print/temp?crfId=${demographics}`)).body.data,
    ).toMatchObject({ fileName: '人口学资料-v2.docx' });
    expect((await t.call(admin, 'DELETE', `/api/v1/business/crf/print/temp?crfId=${demographics}`)).status).toBe(200);
    expect((await t.call(admin, 'GET', `/api/v1/business/crf/print/is_temp?crfId=${demographics}`)).body.data).toBe(
      false,
    );
    expect((await t.call(admin, 'GET', `/api/v1/business/crf/print/temp?crfId=${demographics}`)).body.data).toBeNull();
  });
});
